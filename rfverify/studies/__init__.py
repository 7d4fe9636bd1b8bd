"""Studies built on the harness: the reference zoo (:mod:`.zoo`), calibration (:mod:`.calibration`),
benchmarks (:mod:`.bench`), experiments (:mod:`.scheme_study`, :mod:`.quadrature_experiment`) and every
published claim, one module per paper (:mod:`.claims`)."""
