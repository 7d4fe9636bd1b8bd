"""Compositional kernels and their random feature schemes (Daniely, Frostig, Gupta, Singer 2017).

* :mod:`.activations` – normalised conjugate activations, mpmath coefficients, degree samplers;
* :mod:`.base`        – base spaces/kernels/RFSs of Examples 1–6;
* :mod:`.skeleton`    – computation skeletons, exact kernel (§5), complexity C(S) (eq. 11);
* :mod:`.features`    – Algorithm 1 (RFSS) as a sparse feature map, Comment 1, de-duplication;
* :mod:`.zoo`         – plug-in factories, exact-kernel and domain callables for the rfverify harness.

The verdicts on the paper's printed claims are in
:mod:`rfverify.studies.claims.daniely2017`.
"""

from rfverify.implementations.compositional.activations import (ConjugateActivation, ExpActivation, PolynomialActivation, ReLUActivation,
                          StepActivation, exponential, polynomial, relu, step)
from rfverify.implementations.compositional.base import (BaseRFS, BinaryRFS, CategoricalRFS, CircleRFS, GaussianRFS, PrintedCategoricalRFS,
                   SphereCoordinateRFS, SphereExample5RFS, SphereExample6RFS)
from rfverify.implementations.compositional.features import (CompositionalFeatures, SampledFeatures, comment1_printed, comment1_real,
                       leaf_count_pgf, rfss_recursive, sample_features)
from rfverify.implementations.compositional.skeleton import (InputNode, InternalNode, Skeleton, complexity, conv1d_skeleton, conv2d_skeleton,
                       deep_1d_skeleton, deep_image_skeleton, expected_total_calls, shallow_skeleton,
                       skeleton_kernel, skeleton_kernel_direct)
from rfverify.implementations.compositional.zoo import angle_domain, deep1d_features, deep1d_kernel, shallow_features, shallow_kernel

__all__ = [
    "ConjugateActivation", "ExpActivation", "PolynomialActivation", "ReLUActivation", "StepActivation",
    "exponential", "polynomial", "relu", "step",
    "BaseRFS", "BinaryRFS", "CategoricalRFS", "CircleRFS", "GaussianRFS", "PrintedCategoricalRFS",
    "SphereCoordinateRFS", "SphereExample5RFS", "SphereExample6RFS",
    "CompositionalFeatures", "SampledFeatures", "comment1_printed", "comment1_real", "leaf_count_pgf",
    "rfss_recursive", "sample_features",
    "InputNode", "InternalNode", "Skeleton", "complexity", "conv1d_skeleton", "conv2d_skeleton",
    "deep_1d_skeleton", "deep_image_skeleton", "expected_total_calls", "shallow_skeleton",
    "skeleton_kernel", "skeleton_kernel_direct",
    "angle_domain", "deep1d_features", "deep1d_kernel", "shallow_features", "shallow_kernel",
]
