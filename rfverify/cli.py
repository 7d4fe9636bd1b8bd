"""The ``rfverify`` command line.

Exit codes: 0 every check passed; 1 a check failed; 2 the plug-in or the
command is broken (a one-line message says what and how to fix it; add
``--debug`` for the traceback).
"""

from __future__ import annotations

import argparse
import shlex
import sys
import traceback
from typing import Any, Sequence

from . import __version__
from .adapters import load_object
from .errors import RfverifyError, UsageError
from .options import SHARED_OPTIONS, parse_param, parse_seed

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", default=SHARED_OPTIONS["seed"][0], help=SHARED_OPTIONS["seed"][1])
    p.add_argument("--profile", default=SHARED_OPTIONS["profile"][0], help=SHARED_OPTIONS["profile"][1])
    p.add_argument("--json", metavar="FILE", help="write the JSON report to FILE ('-' for stdout)")
    p.add_argument("--report", metavar="DIR", help="also write the HTML/JSON/Markdown report into DIR")
    p.add_argument("--check", action="append", metavar="NAME", help="run only this check (repeatable)")
    _add_limits(p)
    p.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_limits(p: argparse.ArgumentParser) -> None:
    p.add_argument("--time-limit", metavar="SECONDS", help=SHARED_OPTIONS["time-limit"][1])
    p.add_argument("--memory-limit", metavar="SIZE", help=SHARED_OPTIONS["memory-limit"][1])


def _limits(args: argparse.Namespace) -> dict[str, Any]:
    """``time_limit``/``memory_limit`` keywords of runner.run, validated (a UsageError names the option)."""
    from .guard import parse_memory_limit, parse_time_limit

    out: dict[str, Any] = {}
    if getattr(args, "time_limit", None) is not None:
        out["time_limit"] = parse_time_limit(args.time_limit, "--time-limit") or 0
    if getattr(args, "memory_limit", None) is not None:
        out["memory_limit"] = parse_memory_limit(args.memory_limit, "--memory-limit") or 0
    return out


def _add_feature_map_options(fm: argparse.ArgumentParser) -> None:
    fm.add_argument("--kernel", default="rbf", help="registry name, or MODULE:ATTR of k(X, Y) -> Gram (default rbf)")
    fm.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="kernel parameter (repeatable)")
    fm.add_argument("--dim", default="16", help="input dimension d (default 16)")
    fm.add_argument("--domain", default="gaussian",
                    help="gaussian | sphere | positive | MODULE:ATTR of domain(n, d, rng) (default gaussian)")
    fm.add_argument("--bound", help="declared C with |feature| * sqrt(m) <= C (enables the Hoeffding check)")
    fm.add_argument("--biased", action="store_true", help="the estimate is not claimed unbiased")
    fm.add_argument("--bias-bound", help="with --biased: the claimed bound on |E k_hat - k|")
    fm.add_argument("--data-dependent", action="store_true",
                    help="fit depends on X (an adapted basis): skip the checks over the features' randomness and "
                    "measure adapted-approximation instead (default: the plug-in's attribute or detection decides)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rfverify", description="Verify random-feature implementations, with numbers.")
    parser.add_argument("--version", action="version", version=f"rfverify {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    check = sub.add_parser("check", help="verify one implementation")
    kinds = check.add_subparsers(dest="kind", parser_class=_Parser)
    fm = kinds.add_parser("feature-map", help="a feature map: factory, function, or sklearn-style estimator",
                          description="Verify a feature map MODULE:ATTR (or several, with the same options) against "
                          "a kernel.")
    fm.add_argument("target", metavar="MODULE:ATTR", nargs="+")
    _add_feature_map_options(fm)
    _add_common(fm)
    _add_scale(fm)
    qd = kinds.add_parser("quadrature", help="a stochastic quadrature rule rule(d, rng) -> (points, weights)",
                          description="Verify a rule MODULE:ATTR estimating E f(w), w ~ N(0, I_d).")
    qd.add_argument("target", metavar="MODULE:ATTR")
    qd.add_argument("--dim", default="8", help="dimension d (default 8)")
    qd.add_argument("--degree", default="0", help="claimed degree of exactness for every draw (default 0)")
    qb = qd.add_mutually_exclusive_group()
    qb.add_argument("--unbiased", dest="biased", action="store_false", help="claimed unbiased (default)")
    qb.add_argument("--biased", dest="biased", action="store_true", help="not claimed unbiased")
    qd.set_defaults(biased=False)
    _add_common(qd)
    rep = sub.add_parser("report", help="verify implementations and write reports (HTML, JSON, Markdown)",
                         description="Verify one feature map MODULE:ATTR (with the options of 'check "
                         "feature-map'), or every reference implementation and published claim (--all), and "
                         "write an HTML page and a JSON report per implementation, index.html, index.json and "
                         "SUMMARY.md into --out.")
    rep.add_argument("target", metavar="MODULE:ATTR", nargs="?", help="a feature map to report on")
    _add_feature_map_options(rep)
    rep.add_argument("--check", action="append", metavar="NAME", help="with MODULE:ATTR: run only this check")
    rep.add_argument("--all", action="store_true", help="every implementation of the reference zoo, and the claims")
    rep.add_argument("--only", action="append", metavar="NAME", help="only this zoo entry (repeatable)")
    rep.add_argument("--out", default="reports", help="output directory (default reports/)")
    _add_scale(rep)
    rep.add_argument("--seed", default=SHARED_OPTIONS["seed"][0], help=SHARED_OPTIONS["seed"][1])
    rep.add_argument("--profile", default=SHARED_OPTIONS["profile"][0], help=SHARED_OPTIONS["profile"][1])
    _add_limits(rep)
    rep.add_argument("--debug", action="store_true", help="show tracebacks")
    cl = sub.add_parser("claims", help="evaluate and print the published-claims table",
                        description="Every statement from the source papers that rfverify checks, with its verdict.")
    cl.add_argument("--source", action="append", help="only claims from this paper (repeatable)")
    cl.add_argument("--json", metavar="FILE", help="also write the claims as JSON")
    cl.add_argument("--debug", action="store_true", help="show tracebacks")
    tb = sub.add_parser("tables", help="write high-precision reference tables (mpmath)",
                        description="Write the maxout Hermite tables (q, sigma^2, h_1..h_8, a_0..a_8, the kernel's "
                        "coefficients) with precision and method recorded; byte-identical on every run.")
    tb.add_argument("which", choices=["maxout"])
    tb.add_argument("--out", default="reports/tables", help="output directory (default reports/tables)")
    tb.add_argument("--debug", action="store_true", help="show tracebacks")
    lst = sub.add_parser("list", help="list kernels, checks and zoo entries")
    lst.add_argument("what", choices=["kernels", "checks", "zoo"])
    orth = kinds.add_parser("orthogonal", help="a random orthogonal-matrix sampler claimed Haar on O(d) or SO(d)",
                            description="Verify MODULE:ATTR, sample(d, rng) -> (d, d) or an object with "
                            "rvs(dim=..., random_state=...), against Haar measure on --group.")
    orth.add_argument("target", metavar="MODULE:ATTR")
    orth.add_argument("--dim", default="8", help="matrix dimension d (default 8)")
    orth.add_argument("--group", default="O", choices=["O", "SO"], help="declared group (default O)")
    _add_common(orth)
    tr = kinds.add_parser("transform", help="a fast linear transform apply(X) claimed equal to X @ M.T",
                          description="Verify MODULE:ATTR, apply(X (n, d)) -> (n, d), against X @ M.T.")
    tr.add_argument("target", metavar="MODULE:ATTR")
    tr.add_argument("--dim", default="64", help="width d (default 64)")
    tr.add_argument("--matrix", default="hadamard",
                    help="hadamard | hadamard-normalized | MODULE:ATTR of M(d) -> (d, d) (default hadamard)")
    tr.add_argument("--inplace", action="store_true", help="apply may overwrite its input")
    _add_common(tr)
    kn = kinds.add_parser("kernel", help="a kernel k(X, Y) -> Gram: symmetry, PSD (with a witness set), "
                          "normalisation, composition rules",
                          description="Verify a registry kernel NAME or MODULE:ATTR naming a callable k(X, Y) -> Gram "
                          "matrix: symmetry, positive semi-definiteness (a witness set if not), k(x, x) = 1 where "
                          "claimed, and for composite kernels that the composite's feature map estimates it.")
    kn.add_argument("target", metavar="NAME|MODULE:ATTR")
    kn.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="kernel parameter (repeatable)")
    kn.add_argument("--dim", default="16", help="input dimension d (default 16)")
    kn.add_argument("--domain", default=None, help="gaussian | sphere | positive | MODULE:ATTR of domain(n, d, rng) "
                    "(default: the registry kernel's, else gaussian)")
    kn_norm = kn.add_mutually_exclusive_group()
    kn_norm.add_argument("--normalized", dest="normalized", action="store_true", default=None,
                         help="claim k(x, x) = 1 (default: the registry's claim)")
    kn_norm.add_argument("--not-normalized", dest="normalized", action="store_false",
                         help="do not hold the kernel to k(x, x) = 1")
    kn.add_argument("--not-psd", action="store_true",
                    help="declare the kernel not PSD in general: a witness set is then an expected finding (xfail)")
    kn.add_argument("--feature-map", metavar="MODULE:ATTR",
                    help="for a composite kernel: the feature map to test (default: the reference composite map)")
    _add_common(kn)
    bench = sub.add_parser("bench", help="benchmark the structured transforms against their baselines",
                           description="Time FWHT, butterflies (and registered extras) against naive numpy and "
                           "dense BLAS baselines measured in the same run; print the table.")
    bench.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (seconds)")
    bench.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    bench.add_argument("--debug", action="store_true", help="show tracebacks")
    _add_calibrate(sub)
    return parser


def _add_calibrate(sub: Any) -> None:
    from .calibration import CALIBRATION_REFERENCES

    cal = sub.add_parser(
        "calibrate", help="measure false-alarm rates and power over many seeds",
        description="Run the suite over N seeds on correct reference implementations (zoo entries) and on a mutant "
        "library, and write per-check false-alarm rates (and the suite's family-wise rate) and the power per mutant, "
        "each with a 95%% Clopper-Pearson interval, plus wall time, as calibration.json/.md/.html into --out. "
        "Exit 1 if anything is flagged (a false-alarm interval above the design alpha, a bug caught under fewer "
        "than 99%% of seeds).")
    cal.add_argument("--reference", action="append", metavar="NAME",
                     help=f"zoo entry to measure false alarms on (repeatable; default {', '.join(CALIBRATION_REFERENCES)})")
    cal.add_argument("--no-references", action="store_true", help="measure only the mutants")
    cal.add_argument("--kind", action="append", metavar="KIND", help="only references and mutants of this kind (repeatable)")
    cal.add_argument("--mutants", metavar="LIBRARY", help="mutant library: path lib.py[:ATTR] or MODULE:ATTR "
                     "(a list of rfverify.calibration.Mutant; e.g. tests/mutant_library.py)")
    cal.add_argument("--mutant", action="append", metavar="NAME", help="only this mutant of the library (repeatable)")
    cal.add_argument("--profile", action="append", metavar="NAME", help="profile (repeatable; default quick and default)")
    cal.add_argument("--fa-seeds", default="100", help="seeds per reference, whole suite (default 100)")
    cal.add_argument("--power-seeds", default="100", help="seeds per bug, its caught_by checks (default 100)")
    cal.add_argument("--scan-seeds", default="2",
                     help="of those, how many run the whole suite to see which other checks fire (default 2)")
    cal.add_argument("--equivalent-seeds", default="20", help="seeds per equivalent mutant, whole suite (default 20)")
    cal.add_argument("--seed-base", default="1000000", help="seeds are SEED_BASE + 0, 1, ... (default 1000000)")
    _add_scale(cal)
    cal.add_argument("--out", default="reports/calibration", help="output directory (default reports/calibration)")
    cal.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_scale(p: argparse.ArgumentParser) -> None:
    """--jobs / --scheduler: where the work units run (rfverify.executors); results do not depend on it."""
    p.add_argument("--jobs", default="1", help="local worker processes; results do not depend on it (default 1)")
    p.add_argument("--scheduler", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run the work units on a Dask cluster: tcp://HOST:PORT, local:N (start N local worker "
                   "processes), or no ADDRESS for $DASK_SCHEDULER_ADDRESS; needs the dask extra")


def _executor(args: argparse.Namespace) -> Any:
    """The executor that --jobs / --scheduler ask for (the caller closes it)."""
    from .executors import make_executor

    return make_executor(_parse_int(args.jobs, "--jobs"), args.scheduler,
                         use_scheduler=args.scheduler is not None)


def _parse_int(text: str, what: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise UsageError(f"{what} must be an integer, got {text!r}") from None


def _cmd_check_feature_map(args: argparse.Namespace) -> int:
    from .runner import run

    targets = list(args.target)
    if len(targets) > 1 or args.scheduler is not None or _parse_int(args.jobs, "--jobs") > 1:
        return _check_many(targets, args)
    args.target = targets[0]
    report = run(_feature_map_config(args), checks=args.check, **_limits(args))
    return _emit(report, args)


def _check_many(targets: list[str], args: argparse.Namespace) -> int:
    """Several feature maps with the same options, as work units on the executor of --jobs/--scheduler."""
    import json

    from .batch import verify_many

    options = dict(kernel=args.kernel, kernel_params=dict(parse_param(p) for p in args.param),
                   dim=_parse_int(args.dim, "--dim"), domain=args.domain, bound=args.bound, unbiased=not args.biased,
                   bias_bound=args.bias_bound, data_dependent=True if args.data_dependent else None, **_limits(args))
    seed = parse_seed(args.seed)
    with _executor(args) as executor:
        reports = verify_many(targets, kind="feature-map", seed=seed, profile=args.profile, checks=args.check,
                              executor=executor, progress=_unit_progress("check"), **options)
    if args.json:
        text = json.dumps([r.to_dict() for r in reports], indent=2, allow_nan=False) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(text)
    if args.json != "-":
        for r in reports:
            print(r.table())
            print()
    if getattr(args, "report", None):
        from pathlib import Path

        from .reporting import write_reports

        command = " ".join(shlex.quote(a) for a in ["rfverify", *sys.argv[1:]]) if sys.argv[1:] else ""
        paths = write_reports(Path(args.report), [(r.implementation.replace(":", "."), r) for r in reports],
                              seed=seed, profile=args.profile, command=command)
        print(f"wrote {len(paths)} files to {args.report}", file=sys.stderr)
    for r in reports:
        if r.exit_code == 2:
            first = next(x for x in r.results if x.status == "error")
            print(f"rfverify: error: {r.implementation}: {first.message}", file=sys.stderr)
    return max(r.exit_code for r in reports)


def _unit_progress(label: str) -> Any:
    from .executors import stderr_progress

    return stderr_progress(label)


def _cmd_check_quadrature(args: argparse.Namespace) -> int:
    from .quadrature import QuadratureConfig
    from .runner import run

    config = QuadratureConfig(load_object(args.target), dim=_parse_int(args.dim, "--dim"),
                              degree=_parse_int(args.degree, "--degree"), unbiased=not args.biased,
                              seed=parse_seed(args.seed), profile=args.profile)
    config.plugin.spec = args.target
    return _emit(run(config, checks=args.check, **_limits(args)), args)


def _feature_map_config(args: argparse.Namespace) -> Any:
    from .runner import FeatureMapConfig

    params = dict(parse_param(p) for p in args.param)
    kernel: Any = args.kernel
    kernel_spec = args.kernel
    if ":" in kernel:
        kernel = load_object(kernel)
    domain: Any = args.domain
    domain_spec = args.domain
    if ":" in domain:
        domain = load_object(domain)
    config = FeatureMapConfig(
        args.target,
        kernel=kernel,
        kernel_params=params,
        dim=_parse_int(args.dim, "--dim"),
        domain=domain,
        bound=args.bound,
        unbiased=not args.biased,
        bias_bound=args.bias_bound,
        seed=parse_seed(args.seed),
        profile=args.profile,
        kernel_spec=kernel_spec,
        domain_spec=domain_spec,
        data_dependent=True if args.data_dependent else None,
    )
    config.plugin.spec = args.target
    return config


def _emit(report: Any, args: argparse.Namespace) -> int:
    if args.json:
        text = report.to_json()
        if args.json == "-":
            sys.stdout.write(text)
        else:
            with open(args.json, "w", encoding="utf-8") as fh:
                fh.write(text)
    if args.json != "-":
        print(report.table())
    if getattr(args, "report", None):
        from pathlib import Path

        from .reporting import write_reports

        command = " ".join(shlex.quote(a) for a in ["rfverify", *sys.argv[1:]]) if sys.argv[1:] else ""
        name = report.implementation.replace(":", ".")
        paths = write_reports(Path(args.report), [(name, report)], seed=report.seed, profile=report.profile,
                              command=command)
        print(f"wrote {len(paths)} files to {args.report}", file=sys.stderr)
    if report.exit_code == 2:
        first = next(r for r in report.results if r.status == "error")
        print(f"rfverify: error: {first.message}", file=sys.stderr)
    return report.exit_code


def _cmd_report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .progress import Progress
    from .reporting import write_reports
    from .zoo import zoo_entries

    if args.target and (args.all or args.only):
        raise UsageError("report on either MODULE:ATTR or zoo entries (--all / --only NAME), not both")
    if not args.target and not args.all and not args.only:
        raise UsageError("say what to report on: MODULE:ATTR, --all, or --only NAME (see 'rfverify list zoo')")
    if not args.target and args.check:
        raise UsageError("--check selects checks of MODULE:ATTR; zoo reports always run every check")
    if args.target and (args.scheduler is not None or args.jobs != "1"):
        raise UsageError("--jobs and --scheduler spread zoo entries (--all / --only NAME); for several feature maps "
                         "use 'rfverify check feature-map A:X B:Y ... --report DIR'")
    if not args.target and (args.time_limit is not None or args.memory_limit is not None):
        raise UsageError("--time-limit and --memory-limit apply to MODULE:ATTR; zoo reports use the profile's limits")
    seed = parse_seed(args.seed)
    reports = []
    docs: dict[str, str] = {}
    if args.target:
        from .runner import run

        config = _feature_map_config(args)
        progress = Progress(1)
        with progress.entry(1, args.target):
            report = run(config, checks=args.check, **_limits(args))
        progress.done(report)
        reports.append((args.target, report))
        # the check's reproduce command, made into this report's: same target, options, seed and profile
        repro = config.reproduce("").rsplit(" --check", 1)[0]
        command = repro.replace("rfverify check feature-map", "rfverify report", 1) + " --out " + shlex.quote(args.out)
    else:
        reports, docs, progress = _zoo_reports(zoo_entries(args.only), seed, args)
        command = (f"rfverify report {'--all' if args.all else ' '.join('--only ' + n for n in args.only)} "
                   f"--out {args.out} --seed {seed} --profile {args.profile}")
    claims = None
    if args.all:
        import time

        from .claims import evaluate_claims

        progress.note("evaluating the published claims ...")
        t0 = time.perf_counter()
        claims = evaluate_claims()
        progress.note(f"{len(claims)} claims evaluated ({time.perf_counter() - t0:.1f} s)")
    for _, report in reports:
        print(report.table())
        print()
    paths = write_reports(Path(args.out), reports, seed=seed, profile=args.profile, claims=claims, docs=docs,
                          command=command)
    progress.note(f"wrote {len(paths)} files to {args.out} (open {Path(args.out) / 'index.html'})")
    return max((r.exit_code for _, r in reports), default=0)


def _zoo_reports(entries: list[Any], seed: int, args: argparse.Namespace) -> tuple[list[Any], dict[str, str], Any]:
    """Every zoo entry as a work unit on the executor of --jobs/--scheduler; the reports in entry order."""
    from .batch import reports_from, zoo_tasks
    from .progress import Progress

    progress = Progress(len(entries))
    done = [0]

    def line(i: int, outcome: Any) -> None:
        done[0] += 1
        verdict = "LOST" if not outcome.ok else {0: "passed", 1: "FAILED"}.get(outcome.value.exit_code, "ERROR")
        progress.note(f"[{done[0]}/{len(entries)}] {entries[i].name}: {verdict} ({outcome.seconds:.1f} s)"
                      + ("" if outcome.ok else f" — {outcome.error}"))

    with _executor(args) as executor:
        outcomes = executor.map(zoo_tasks([e.name for e in entries], seed=seed, profile=args.profile),
                                progress=_unit_progress("report"), on_outcome=line)
    reports = reports_from(outcomes, [(e.kind, e.implementation) for e in entries], seed=seed, profile=args.profile)
    return [(e.name, r) for e, r in zip(entries, reports)], {e.name: e.doc for e in entries}, progress


def _cmd_claims(args: argparse.Namespace) -> int:
    import json

    from .claims import claims_markdown, evaluate_claims

    claims = evaluate_claims(args.source)
    print(claims_markdown(claims), end="")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump([c.to_dict() for c in claims], fh, indent=2)
            fh.write("\n")
    counts = {v: sum(c.verdict == v for c in claims) for v in ("holds", "holds with a correction", "fails")}
    print(f"\n{len(claims)} claims: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    if args.what == "zoo":
        from .zoo import ZOO

        for e in ZOO:
            print(f"{e.name}  {e.implementation}  {e.doc}")
        return 0
    if args.what == "kernels":
        from .kernels import _REGISTRY

        for name in sorted(_REGISTRY):
            spec = _REGISTRY[name]
            params = ", ".join(f"{k}={p.default!r}" for k, p in spec.params.items())
            print(f"{name}({params})  {spec.doc}")
    else:
        from .registry import KINDS, checks_for

        for kind in KINDS:
            for s in checks_for(kind):
                print(f"{kind}/{s.name}{' [statistical]' if s.statistical else ''}  {s.summary}")
    return 0


def _cmd_check_orthogonal(args: argparse.Namespace) -> int:
    from .orthogonal_kind import OrthogonalConfig
    from .runner import run

    config = OrthogonalConfig(args.target, dim=_parse_int(args.dim, "--dim"), group=args.group,
                              seed=parse_seed(args.seed), profile=args.profile)
    return _emit(run(config, checks=args.check, **_limits(args)), args)


def _cmd_check_transform(args: argparse.Namespace) -> int:
    from .runner import run
    from .transform_kind import TransformConfig

    config = TransformConfig(args.target, dim=_parse_int(args.dim, "--dim"), matrix=args.matrix,
                             inplace=args.inplace, seed=parse_seed(args.seed), profile=args.profile)
    return _emit(run(config, checks=args.check, **_limits(args)), args)


def _cmd_check_kernel(args: argparse.Namespace) -> int:
    from .kernel_kind import KernelConfig
    from .runner import run

    params = dict(parse_param(p) for p in args.param)
    domain: Any = args.domain
    if domain is not None and ":" in domain:
        domain = load_object(domain)
    config = KernelConfig(args.target, kernel_params=params, dim=_parse_int(args.dim, "--dim"), domain=domain,
                          normalized=args.normalized, psd=False if args.not_psd else None,
                          seed=parse_seed(args.seed), profile=args.profile, domain_spec=args.domain,
                          feature_map=args.feature_map)
    return _emit(run(config, checks=args.check, **_limits(args)), args)


def _cmd_bench(args: argparse.Namespace) -> int:
    import json

    from .bench import format_table, run_structured_benchmarks

    rows = run_structured_benchmarks(quick=args.quick)
    print(format_table(rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(rows, fh, indent=2, default=str)
            fh.write("\n")
    return 0


def _calibrate_command(args: argparse.Namespace) -> str:
    """The command that repeats this calibration, rebuilt from the parsed options (every default spelled out)."""
    parts = ["rfverify", "calibrate"]
    parts += ["--no-references"] if args.no_references else [a for r in args.reference or () for a in ("--reference", r)]
    parts += [a for k in args.kind or () for a in ("--kind", k)]
    parts += ["--mutants", args.mutants] if args.mutants else []
    parts += [a for m in args.mutant or () for a in ("--mutant", m)]
    parts += [a for p in args.profile or ("quick", "default") for a in ("--profile", p)]
    # --jobs / --scheduler are left out: the numbers do not depend on them (the timing records them)
    for opt in ("fa_seeds", "power_seeds", "scan_seeds", "equivalent_seeds", "seed_base", "out"):
        if getattr(args, opt) is not None:
            parts += ["--" + opt.replace("_", "-"), str(getattr(args, opt))]
    return " ".join(shlex.quote(p) for p in parts)


def _cmd_calibrate(args: argparse.Namespace) -> int:
    import time

    from .calibration import CALIBRATION_REFERENCES, calibrate, load_mutants, write_calibration
    from .registry import KINDS
    from .zoo import zoo_entries

    kinds = args.kind or None
    for k in kinds or ():
        if k not in KINDS:
            raise UsageError(f"unknown kind {k!r}; kinds: {', '.join(KINDS)}")
    refs = [] if args.no_references else list(args.reference or CALIBRATION_REFERENCES)
    if kinds:
        refs = [e.name for e in zoo_entries(refs) if e.kind in kinds]
    mutants = args.mutant
    if args.mutants and kinds:
        names = {m.name for m in load_mutants(args.mutants) if m.kind in kinds}
        mutants = [n for n in (mutants or [m.name for m in load_mutants(args.mutants)]) if n in names]
    ints = {o: _parse_int(getattr(args, o), "--" + o.replace("_", "-"))
            for o in ("fa_seeds", "power_seeds", "scan_seeds", "seed_base", "jobs")}
    eq = None if args.equivalent_seeds is None else _parse_int(args.equivalent_seeds, "--equivalent-seeds")
    if ints["jobs"] < 1:
        raise UsageError(f"--jobs must be at least 1, got {ints['jobs']}")
    last = [0.0]

    def progress(i: int, n: int, elapsed: float) -> None:
        if i == n or elapsed - last[0] >= 15.0:
            last[0] = elapsed
            eta = elapsed / i * (n - i)
            print(f"calibrate: {i}/{n} units, {elapsed / 60:.1f} min, about {eta / 60:.1f} min left",
                  file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    with _executor(args) as executor:
        doc = calibrate(references=refs, library=args.mutants, mutants=mutants,
                        profiles=args.profile or ["quick", "default"], fa_seeds=ints["fa_seeds"],
                        power_seeds=ints["power_seeds"], scan_seeds=ints["scan_seeds"], equivalent_seeds=eq,
                        seed_base=ints["seed_base"], jobs=ints["jobs"], progress=progress, executor=executor)
    doc["command"] = _calibrate_command(args)
    paths = write_calibration(doc, args.out)
    from .calibration import calibration_markdown

    print(calibration_markdown(doc))
    print(f"wrote {', '.join(str(p) for p in paths)} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return 1 if doc["flags"] else 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "check" and args.kind == "orthogonal":
            return _cmd_check_orthogonal(args)
        if args.command == "check" and args.kind == "transform":
            return _cmd_check_transform(args)
        if args.command == "check" and args.kind == "kernel":
            return _cmd_check_kernel(args)
        if args.command == "bench":
            return _cmd_bench(args)
        if args.command == "check":
            if args.kind == "feature-map":
                return _cmd_check_feature_map(args)
            if args.kind == "quadrature":
                return _cmd_check_quadrature(args)
            raise UsageError("say what to check: rfverify check feature-map MODULE:ATTR ...")
        if args.command == "report":
            return _cmd_report(args)
        if args.command == "claims":
            return _cmd_claims(args)
        if args.command == "tables":
            from .highprec.maxout import write_tables

            for path in write_tables(args.out):
                print(path)
            return 0
        if args.command == "calibrate":
            return _cmd_calibrate(args)
        if args.command == "list":
            return _cmd_list(args)
        parser.print_help()
        print("rfverify: error: say what to do: rfverify check KIND MODULE:ATTR, report, list, ... (see above)",
              file=sys.stderr)
        return 2
    except RfverifyError as exc:  # UsageError and PluginError: one line, exit 2
        if debug:
            traceback.print_exc()
        print(f"rfverify: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # an output path (--json, --report, --out) that cannot be written
        if debug:
            traceback.print_exc()
        where = f" {exc.filename}" if exc.filename else ""
        print(f"rfverify: error: cannot use the path{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("rfverify: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
