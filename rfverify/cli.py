"""The ``rfverify`` command line.

Exit codes: 0 every check passed; 1 a check failed; 2 the plug-in or the
command is broken (a one-line message says what and how to fix it; add
``--debug`` for the traceback).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import traceback
from typing import TYPE_CHECKING, Any, Callable, NoReturn, Sequence, TypeAlias, TypedDict

from rfverify.version import __version__
from rfverify.cli_text import EXIT_SIGPIPE, HelpFormatter, add_quiet, epilog, stdout_closed
from rfverify.errors import PluginError, RfverifyError, UsageError
from rfverify.exit_status import worst_exit_code
from rfverify.options import SHARED_OPTIONS, parse_seed

if TYPE_CHECKING:
    from rfverify.containment.executors import Executor, Outcome
    from rfverify.kinds.base import KindConfig
    from rfverify.progress import Progress
    from rfverify.results import Report
    from rfverify.studies.claims import ClaimSpec
    from rfverify.studies.zoo import ZooEntry

__all__ = ["main", "build_parser"]


class _LimitOptions(TypedDict, total=False):
    """``time_limit``/``memory_limit`` keywords of :func:`rfverify.runner.run`, as given on the command line."""

    time_limit: float
    memory_limit: int


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)  # keeps the examples of every --help as typed
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # one line, exit 2
        raise UsageError(f"{message} (see '{self.prog} --help')")


#: The ``rfverify`` sub-command table each ``_add_*`` adds to.
_Subcommands: TypeAlias = "argparse._SubParsersAction[_Parser]"


def _add_common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", default=SHARED_OPTIONS["seed"][0], help=SHARED_OPTIONS["seed"][1])
    p.add_argument("--profile", default=SHARED_OPTIONS["profile"][0], help=SHARED_OPTIONS["profile"][1])
    p.add_argument("--json", metavar="FILE", help="write the JSON report to FILE ('-' for stdout)")
    p.add_argument("--report", metavar="DIR", help="also write the HTML/JSON/Markdown report into DIR")
    p.add_argument("--check", action="append", metavar="NAME", help="run only this check (repeatable)")
    p.add_argument("--xfail", action="append", metavar="CHECK=REASON",
                   help="CHECK is expected to fail, for REASON (repeatable): a failure is xfail (exit 0), a pass fails")
    p.add_argument("--space", action="append", metavar="KEY=LO:HI|KEY=V1,V2",
                   help="narrow the space explore searches (repeatable; the axes of rfverify_space: d, n_components, "
                   "batch, dtype, layout, norm, a kernel parameter ...; an end of LO:HI left out is the default's)")
    p.add_argument("--strict-space", action="store_true",
                   help="a plug-in refusing any configuration of the searched space fails explore (default: a clean "
                   "refusal - ValueError, TypeError, NotImplementedError - away from the main configuration sets it "
                   "aside and the verdict states the refused region)")
    _add_limits(p)
    add_quiet(p)
    p.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_limits(p: argparse.ArgumentParser) -> None:
    p.add_argument("--time-limit", metavar="SECONDS", help=SHARED_OPTIONS["time-limit"][1])
    p.add_argument("--memory-limit", metavar="SIZE", help=SHARED_OPTIONS["memory-limit"][1])


def _limits(args: argparse.Namespace) -> _LimitOptions:
    """``time_limit``/``memory_limit`` keywords of runner.run, validated (a UsageError names the option)."""
    from rfverify.containment.guard import parse_memory_limit, parse_time_limit

    out: _LimitOptions = {}
    if getattr(args, "time_limit", None) is not None:
        out["time_limit"] = parse_time_limit(args.time_limit, "--time-limit") or 0
    if getattr(args, "memory_limit", None) is not None:
        out["memory_limit"] = parse_memory_limit(args.memory_limit, "--memory-limit") or 0
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="rfverify", description="Verify random-feature implementations, with numbers.",
                     epilog=epilog("rfverify"))
    parser.add_argument("--version", action="version", version=f"rfverify {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    for add in (_add_check, _add_report, _add_claims, _add_tables, _add_list, _add_bench, _add_calibrate):
        add(sub)
    from rfverify.studies.ecosystem import add_cli

    add_cli(sub)
    return parser


def _add_check(sub: _Subcommands) -> None:
    """``check KIND``: one sub-command per row of the kind table, its options generated."""
    from rfverify.kinds import KINDS

    check = sub.add_parser("check", help="verify one implementation", epilog=epilog("check"))
    kinds = check.add_subparsers(dest="kind", parser_class=_Parser)

    for row in KINDS.values():  # one sub-command per row of the kind table
        cls = row.config_class()
        kp = kinds.add_parser(row.name, help=row.summary, description=cls.CLI.description,
                              epilog=epilog(f"check {row.name}", cls.CLI.examples))
        if cls.CLI.many:
            kp.add_argument("target", metavar=cls.CLI.metavar, nargs="+",
                            help="one or several (same options; several run as work units, see --jobs)")
        else:
            kp.add_argument("target", metavar=cls.CLI.metavar)
        cls.add_cli_options(kp)
        _add_common(kp)
        if cls.CLI.many:
            _add_scale(kp)


def _add_report(sub: _Subcommands) -> None:
    """``report``: a feature map's options, or ``--all``."""
    from rfverify.kinds import KINDS

    rep = sub.add_parser("report", help="verify implementations and write reports (HTML, JSON, Markdown)",
                         description="Verify one feature map MODULE:ATTR (with the options of 'check "
                         "feature-map'), or every reference implementation and published claim (--all), and "
                         "write an HTML page and a JSON report per implementation, index.html, index.json and "
                         "SUMMARY.md into --out (default rfverify-reports/, git-ignored; the committed reports/ is "
                         "regenerated by maintainers with --all --out reports/).", epilog=epilog("report"))
    rep.add_argument("target", metavar="MODULE:ATTR", nargs="?", help="a feature map to report on")
    KINDS["feature-map"].config_class().add_cli_options(rep)
    rep.add_argument("--check", action="append", metavar="NAME", help="with MODULE:ATTR: run only this check")
    rep.add_argument("--all", action="store_true", help="every implementation of the reference zoo, and the claims")
    rep.add_argument("--only", action="append", metavar="NAME", help="only this zoo entry (repeatable)")
    rep.add_argument("--out", default="rfverify-reports", help="output directory (default rfverify-reports/)")
    _add_scale(rep, all_cores=True)
    rep.add_argument("--seed", default=SHARED_OPTIONS["seed"][0], help=SHARED_OPTIONS["seed"][1])
    rep.add_argument("--profile", default=SHARED_OPTIONS["profile"][0], help=SHARED_OPTIONS["profile"][1])
    _add_limits(rep)
    add_quiet(rep)
    rep.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_claims(sub: _Subcommands) -> None:
    """``claims``: the published-claims table."""
    cl = sub.add_parser("claims", help="evaluate and print the published-claims table",
                        description="Every statement from the source papers that rfverify checks, with its verdict.",
                        epilog=epilog("claims"))
    cl.add_argument("--source", action="append", help="only claims from this paper (repeatable; checked before "
                    "anything is computed)")
    cl.add_argument("--id", action="append", dest="ids", metavar="ID",
                    help="only this claim (repeatable); every row's reproduce command uses it")
    cl.add_argument("--format", choices=["terminal", "markdown", "latex", "json"], default="terminal",
                    help="terminal (wrapped at 120 columns, default), markdown (id, paper key and claim, method, verdict "
                    "with its rule, evidence with the notation note, reproduce command; text escaped), latex (a "
                    "longtable to paste; its preamble in the header) or json (every field)")
    cl.add_argument("--out", metavar="FILE", help="write the table to FILE instead of stdout")
    cl.add_argument("--json", metavar="FILE", help="also write the claims as JSON")
    cl.add_argument("--list", action="store_true", help="list the claim ids and statements without evaluating")
    cl.add_argument("--heavy", action="store_true", help="also the heavy claims (training runs, seconds each; "
                    "a heavy claim named by --id runs without it)")
    cl.add_argument("--jobs", default=None, help="worker processes (default every usable core); the claims do not "
                    "depend on it")
    cl.add_argument("--recompute", action="store_true",
                    help="recompute the high-precision values with mpmath instead of reading the committed table")
    add_quiet(cl)
    cl.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_tables(sub: _Subcommands) -> None:
    """``tables``: the high-precision reference tables."""
    tb = sub.add_parser("tables", help="write high-precision reference tables (mpmath)",
                        description="Write the maxout Hermite tables (q, sigma^2, h_1..h_8, a_0..a_8, the kernel's "
                        "coefficients) with precision and method recorded; byte-identical on every run.",
                        epilog=epilog("tables"))
    tb.add_argument("which", choices=["maxout"])
    tb.add_argument("--out", default="reports/tables", help="output directory (default reports/tables)")
    tb.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_list(sub: _Subcommands) -> None:
    """``list``: kernels, checks, zoo."""
    lst = sub.add_parser("list", help="list kernels, checks and zoo entries", epilog=epilog("list"),
                         description="A table with a header: the registry kernels, every check of every kind, or the "
                         "reference implementations of the zoo (name, kind, implementation, what it is).")
    lst.add_argument("what", choices=["kernels", "checks", "zoo"])
    lst.add_argument("--format", choices=["table", "markdown"], default="table",
                     help="table (default) or markdown: the check catalogue of the README, generated from the "
                     "registry (checks only)")


def _add_bench(sub: _Subcommands) -> None:
    """``bench``: the structured transforms against their baselines."""
    bench = sub.add_parser("bench", help="benchmark the structured transforms against their baselines",
                           description="Time FWHT, butterflies (and registered extras) against naive numpy and "
                           "dense BLAS baselines measured in the same run; print the table with a legend of its "
                           "columns and units.", epilog=epilog("bench"))
    bench.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (seconds)")
    bench.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    add_quiet(bench)
    bench.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_calibrate(sub: _Subcommands) -> None:
    from rfverify.studies.calibration import CALIBRATION_REFERENCES

    cal = sub.add_parser(
        "calibrate", help="measure false-alarm rates and power over many seeds",
        description="Run the suite over N seeds on correct reference implementations (zoo entries) and on a mutant "
        "library, and write per-check false-alarm rates (and the suite's family-wise rate) and the power per mutant, "
        "each with a 95% Clopper-Pearson interval, plus wall time, as calibration.json/.md/.html into --out. "
        "Exit 1 if anything is flagged (a false-alarm interval above the design alpha, a bug caught under fewer "
        "than 99% of seeds).", epilog=epilog("calibrate"))
    cal.add_argument("--reference", action="append", metavar="NAME",
                     help=f"zoo entry to measure false alarms on (repeatable; default {', '.join(CALIBRATION_REFERENCES)})")
    cal.add_argument("--no-references", action="store_true", help="measure only the mutants")
    cal.add_argument("--kind", action="append", metavar="KIND", help="only references and mutants of this kind (repeatable)")
    cal.add_argument("--mutants", metavar="LIBRARY", help="the mutant library to measure power on, as you name it: a "
                     "path lib.py[:ATTR], a package directory or an importable MODULE[:ATTR] (ATTR defaults to LIBRARY, "
                     "a list of rfverify.studies.calibration.Mutant). Default: none, only the references' false "
                     "alarms are measured. rfverify's own library is tests.mutants in a source checkout (developers)")
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
    add_quiet(cal)
    cal.add_argument("--debug", action="store_true", help="show tracebacks")


def _add_scale(p: argparse.ArgumentParser, all_cores: bool = False) -> None:
    """--jobs / --scheduler: where the work units run (rfverify.containment.executors); results do not depend on it."""
    p.add_argument("--jobs", default=None if all_cores else "1", help="local worker processes; results do not depend "
                   "on it (default " + ("every usable core, at most one per unit)" if all_cores else "1)"))
    p.add_argument("--scheduler", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run the work units on a Dask cluster: tcp://HOST:PORT, local:N (start N local worker "
                   "processes), or no ADDRESS for $DASK_SCHEDULER_ADDRESS; needs the dask extra")


def _executor(args: argparse.Namespace, units: int = 1) -> Executor:
    """The executor that --jobs / --scheduler ask for, for ``units`` work units (the caller closes it)."""
    from rfverify.containment.executors import make_executor
    from rfverify.kinds.base import parse_int

    from rfverify.studies.batch import default_jobs

    jobs = default_jobs(units, args.scheduler is not None) if args.jobs is None else parse_int(args.jobs, "--jobs")
    return make_executor(jobs, args.scheduler, use_scheduler=args.scheduler is not None)


def _cmd_check(args: argparse.Namespace) -> int:
    """``rfverify check KIND MODULE:ATTR ...``: the kind's configuration from its options, then the runner."""
    from rfverify.kinds import get_kind
    from rfverify.kinds.base import parse_int
    from rfverify.runner import run

    if args.kind is None:
        raise UsageError("say what to check: rfverify check KIND MODULE:ATTR ... (KIND: "
                         "feature-map, orthogonal, transform, quadrature, kernel)")
    cls = get_kind(args.kind).config_class()
    if cls.CLI.many:
        targets = list(args.target)
        if len(targets) > 1 or args.scheduler is not None or parse_int(args.jobs, "--jobs") > 1:
            return _check_many(targets, args)
        args.target = targets[0]
    try:
        _probe_import(cls, args)
        config = cls.from_cli(args)
    except PluginError as exc:  # plug-in code failed while the configuration was built (import, form detection)
        if not (args.json or getattr(args, "report", None)):
            raise
        return _emit(_unbuilt(args, exc), args)  # the outputs asked for are still written
    from rfverify.options import parse_xfail
    from rfverify.progress import Progress

    with Progress(1, quiet=args.quiet, delay=1.0) as progress:  # silent for a run under a second
        with progress.entry(1, str(args.target)):
            report = run(config, checks=args.check, xfail=parse_xfail(args.xfail), strict_space=args.strict_space,
                         **_limits(args))
        progress.done(report)
    return _emit(report, args)


def _probe_import(cls: type[KindConfig], args: argparse.Namespace) -> None:
    """Build the configuration in a throw-away child first (:mod:`rfverify.containment.probe`): a module that exits, crashes,
    hangs or signals at import is a PluginError here, not the end of the run."""
    from rfverify.containment.guard import Limits
    from rfverify.containment.probe import probe
    from rfverify.containment.supervise import GRACE, isolation_wanted, judge_wanted

    if not isolation_wanted():
        return
    limits = Limits.resolve(args.profile, **_limits(args))
    from rfverify import adapters

    adapters.BUILD_LIMITS = limits  # the plug-in's import and form detection in its own process (rfverify.containment.host)
    declared = [getattr(args, k, None) for k in getattr(cls, "HARNESS_IMPORTS", ())]  # --matrix/--domain callables
    if getattr(cls, "HOSTED", False) and judge_wanted() and not any(isinstance(v, str) and ":" in v for v in declared):
        return  # nothing named is imported here
    named = [v for v in declared if isinstance(v, str) and ":" in v]
    what = f"importing {' and '.join([str(args.target), *named])} (and detecting the plug-in's form)"
    problem = probe(lambda: cls.from_cli(args), what, limits.time, GRACE)
    if problem is not None:
        raise PluginError(str(args.target), problem, "a module must import without exiting, crashing, hanging or "
                          "signalling (guard scripts with if __name__ == '__main__')")


def _check_many(targets: list[str], args: argparse.Namespace) -> int:
    """Several feature maps with the same options, as work units on the executor of --jobs/--scheduler."""
    import json

    from rfverify.kinds.feature_map import FeatureMapConfig
    from rfverify.options import parse_xfail
    from rfverify.studies.batch import verify_many

    options = dict(**FeatureMapConfig.cli_options(args), **_limits(args), xfail=parse_xfail(args.xfail),
                   strict_space=args.strict_space)
    seed = parse_seed(args.seed)
    with _executor(args) as executor, _bar(len(targets), args, "implementation") as bar:
        reports = verify_many(targets, kind="feature-map", seed=seed, profile=args.profile, checks=args.check,
                              executor=executor, progress=_unit_progress(bar, "implementations verified"), **options)
    if args.json:  # the shape follows the targets named, never the executor: one target, one report object
        text = reports[0].to_json() if len(targets) == 1 else \
            json.dumps([r.to_dict() for r in reports], indent=2, allow_nan=False) + "\n"
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

        from rfverify.report.writing import write_reports

        command = " ".join(shlex.quote(a) for a in ["rfverify", *sys.argv[1:]]) if sys.argv[1:] else ""
        paths = write_reports(Path(args.report), [(r.implementation.replace(":", "."), r) for r in reports],
                              seed=seed, profile=args.profile, command=command)
        print(f"wrote {len(paths)} files to {args.report}", file=sys.stderr)
    for r in reports:
        if r.exit_code == 2:
            first = next(x for x in r.results if x.status == "error")
            print(f"rfverify: error: {r.implementation}: {first.message}", file=sys.stderr)
    return worst_exit_code(r.exit_code for r in reports)


def _bar(total: int, args: argparse.Namespace, what: str) -> Progress:
    from rfverify.progress import Progress

    return Progress(total, quiet=getattr(args, "quiet", False), what=what)


def _unit_progress(bar: Progress, label: str) -> Callable[[int, int, float], None]:
    """An executor's ``progress(done, total, elapsed)`` drawn on ``bar``: one line per finished unit."""
    def progress(done: int, total: int, elapsed: float) -> None:
        bar.step(done, label, seconds=elapsed)

    return progress


def _unbuilt(args: argparse.Namespace, exc: Exception) -> Report:
    """The report of a plug-in whose configuration could not be built: every check ``error`` with ``exc``."""
    from rfverify.kinds import checks_for
    from rfverify.results import CheckResult, Report

    seed = parse_seed(args.seed)
    label = str(args.target)
    from rfverify.options import without_output_options

    given = without_output_options(getattr(args, "argv", None) or ["check", args.kind, label])
    named = {a.split("=", 1)[0] for a in given}
    reproduce = " ".join(shlex.quote(a) for a in ["rfverify", *given,
                                                  *([] if "--seed" in named else ["--seed", str(seed)]),
                                                  *([] if "--profile" in named else ["--profile", args.profile])])
    names = [s.name for s in checks_for(args.kind) if not args.check or s.name in args.check]
    results = tuple(CheckResult(check=n, implementation=label, status="error", message=str(exc), seed=seed,
                                reproduce=reproduce) for n in names)
    return Report(implementation=label, kind=args.kind, target={}, seed=seed, profile=args.profile, config={},
                  results=results, version=__version__)


def _feature_map_config(args: argparse.Namespace) -> KindConfig:
    from rfverify.kinds.feature_map import FeatureMapConfig

    return FeatureMapConfig.from_cli(args)


def _emit(report: Report, args: argparse.Namespace) -> int:
    if args.json:
        text = report.to_json()
        if args.json == "-":
            sys.stdout.write(text)
        else:
            from rfverify.report.writing import atomic_write

            atomic_write(args.json, text)
    if args.json != "-":
        print(report.table())
    if getattr(args, "report", None):
        from pathlib import Path

        from rfverify.report.writing import write_reports

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

    from rfverify.progress import Progress
    from rfverify.report.writing import write_reports
    from rfverify.studies.zoo import zoo_entries

    if args.target and (args.all or args.only):
        raise UsageError("report on either MODULE:ATTR or zoo entries (--all / --only NAME), not both")
    if not args.target and not args.all and not args.only:
        raise UsageError("say what to report on: MODULE:ATTR, --all, or --only NAME (see 'rfverify list zoo')")
    if not args.target and args.check:
        raise UsageError("--check selects checks of MODULE:ATTR; zoo reports always run every check")
    if args.target and (args.scheduler is not None or args.jobs not in (None, "1")):
        raise UsageError("--jobs and --scheduler spread zoo entries (--all / --only NAME); for several feature maps "
                         "use 'rfverify check feature-map A:X B:Y ... --report DIR'")
    if not args.target and (args.time_limit is not None or args.memory_limit is not None):
        raise UsageError("--time-limit and --memory-limit apply to MODULE:ATTR; zoo reports use the profile's limits")
    seed = parse_seed(args.seed)
    reports = []
    docs: dict[str, str] = {}
    if args.target:
        from rfverify.runner import run

        config = _feature_map_config(args)
        progress = Progress(1, quiet=args.quiet)
        with progress.entry(1, args.target):
            report = run(config, checks=args.check, **_limits(args))
        progress.done(report)
        reports.append((args.target, report))
        command = _report_command(config, args.given_paths["out"])
    else:
        reports, docs, progress = _zoo_reports(zoo_entries(args.only), seed, args)
        command = (f"rfverify report {'--all' if args.all else ' '.join('--only ' + n for n in args.only)} "
                   f"--out {args.given_paths['out']} --seed {seed} --profile {args.profile}")
    claims = None
    if args.all:
        import time

        from rfverify.studies.claims import evaluate_claims

        progress.finish()
        t0 = time.perf_counter()
        with _bar(0, args, "claim") as bar:
            claims = evaluate_claims(progress=_claim_progress(bar), jobs=_claim_jobs(args.jobs))
            bar.note(f"{len(claims)} claims evaluated ({time.perf_counter() - t0:.1f} s)")
    progress.finish()
    for _, report in reports:
        print(report.table())
        print()
    paths = write_reports(Path(args.out), reports, seed=seed, profile=args.profile, claims=claims, docs=docs,
                          command=command, merge=not args.all)  # --all: the whole zoo is the whole index
    if not args.quiet:
        print(f"wrote {len(paths)} files to {args.given_paths['out']} (open "
              f"{Path(args.given_paths['out']) / 'index.html'})", file=sys.stderr)
    return worst_exit_code(r.exit_code for _, r in reports)


def _report_command(config: KindConfig, out: str) -> str:
    """The command that repeats ``rfverify report MODULE:ATTR``: the target, the options its reproduce commands
    carry, the seed and profile, and the output directory as typed."""
    assert config.target_spec is not None  # rfverify report takes MODULE:ATTR
    parts = ["rfverify", "report", config.target_spec, *config.reproduce_options(),
             "--seed", str(config.seeds.root), "--profile", config.profile.name, "--out", out]
    return " ".join(shlex.quote(p) for p in parts)


def _zoo_reports(entries: list[ZooEntry], seed: int, args: argparse.Namespace
                 ) -> tuple[list[tuple[str, Report]], dict[str, str], Progress]:
    """Every zoo entry as a work unit on the executor of --jobs/--scheduler; the reports in entry order."""
    from rfverify.studies.batch import reports_from, zoo_tasks
    from rfverify.progress import Progress

    progress = Progress(len(entries), quiet=args.quiet, what="implementation")
    done = [0]

    def line(i: int, outcome: Outcome) -> None:
        done[0] += 1
        verdict = "LOST" if not outcome.ok else {0: "passed", 1: "FAILED"}.get(outcome.value.exit_code, "ERROR")
        progress.step(done[0], entries[i].name, verdict + ("" if outcome.ok else f" — {outcome.error}"),
                      outcome.seconds)

    with _executor(args, len(entries)) as executor:
        outcomes = executor.map(zoo_tasks([e.name for e in entries], seed=seed, profile=args.profile),
                                on_outcome=line)
    reports = reports_from(outcomes, [(e.kind, e.implementation) for e in entries], seed=seed, profile=args.profile)
    return [(e.name, r) for e, r in zip(entries, reports)], {e.name: e.doc for e in entries}, progress


def _cmd_claims(args: argparse.Namespace) -> int:
    import json
    import time

    from rfverify.report.claims_tables import claims_latex, claims_markdown, claims_terminal, counts_line
    from rfverify.studies.claims import evaluate_claims, select_specs

    specs = select_specs(args.source, args.ids, heavy=args.heavy)  # an unknown source or id: rejected here
    if args.list:
        for s in specs:
            print(f"{s.id}  {s.location}: {s.statement}")
        return 0
    if args.recompute:
        from rfverify.highprec.tables import set_recompute

        set_recompute(True)

    t0 = time.perf_counter()
    with _bar(len(specs), args, "claim") as bar:
        claims = evaluate_claims(args.source, args.ids, progress=_claim_progress(bar), jobs=_claim_jobs(args.jobs),
                                 heavy=args.heavy)
    if not args.quiet:
        print(f"{counts_line(claims)} ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    render = {"terminal": claims_terminal, "markdown": claims_markdown, "latex": claims_latex,
              "json": lambda cs: json.dumps([c.to_dict() for c in cs], indent=2) + "\n"}[args.format]
    text = render(claims)
    if args.out and args.format in ("markdown", "latex"):
        from rfverify.report.provenance import generated_stamp
        from rfverify.studies.claims import NOTATION_RULE, RULES

        out_as_typed = getattr(args, "given_paths", {}).get("out", args.out)
        if os.path.isabs(out_as_typed):  # no path of the user's machine in a file meant to be shared
            out_as_typed = os.path.basename(out_as_typed)
        command = " ".join(["rfverify claims", *(f"--source {x}" for x in args.source or []),
                            *(f"--id {x}" for x in args.ids or []), *(["--heavy"] if args.heavy else []),
                            f"--format {args.format}", f"--out {out_as_typed}"])
        stamp = generated_stamp()
        if args.format == "markdown":
            text = (f"# Published claims\n\nGenerated by `{command}` ({stamp}). {counts_line(claims)}. "
                    "Verdict rules: " + "; ".join(f"{k}: {v}" for k, v in RULES.items()) + f". Notation rule: "
                    f"{NOTATION_RULE}. Full evidence: `rfverify claims --format json`; one claim: "
                    "`rfverify claims --id ID`.\n\n" + text)
        else:
            from rfverify.report.claims_tables import tex_escape

            text = (f"% Generated by `{command}` ({stamp}).\n% Verdict rules: "
                    + "; ".join(f"{k}: {v}" for k, v in RULES.items()) + f".\n% Notation rule: {NOTATION_RULE}.\n"
                    + text.replace("\\end{longtable}", "\\end{longtable}\n\\noindent Verdict rules: "
                                   + tex_escape("; ".join(f"{k}: {v}" for k, v in RULES.items())) + ". Notation rule: "
                                   + tex_escape(NOTATION_RULE) + ".", 1))
    if args.out:
        with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    else:
        print(text, end="")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump([c.to_dict() for c in claims], fh, indent=2)
            fh.write("\n")
    return 0


def _claim_jobs(jobs: str | None) -> int:
    """--jobs of the claims: default every usable core."""
    from rfverify.containment.executors import usable_cores
    from rfverify.kinds.base import parse_int

    n = usable_cores() if jobs is None else parse_int(jobs, "--jobs")
    if n < 1:
        raise UsageError(f"--jobs must be a positive integer, got {jobs!r}")
    return n


def _group_progress(bar: Progress) -> Callable[[int, int, str, float], None]:
    """``run_structured_benchmarks``' ``progress(i, n, name, seconds)`` drawn on ``bar``."""
    def progress(i: int, n: int, name: str, seconds: float) -> None:
        bar.total = n
        bar.step(i, name, seconds=seconds)

    return progress


def _claim_progress(bar: Progress) -> Callable[[int, int, ClaimSpec, float], None]:
    """``evaluate_claims``' ``progress(i, n, spec, seconds)`` drawn on ``bar`` (one line per claim)."""
    def progress(i: int, n: int, spec: ClaimSpec, seconds: float) -> None:
        bar.total = n
        bar.step(i, spec.id, seconds=seconds)

    return progress


def _cmd_list(args: argparse.Namespace) -> int:
    """A headed table; every listing has a kind column (``kernel`` for the kernels).  ``list checks --format
    markdown`` prints the README's check catalogue (``tests/test_docs.py`` keeps the README equal to it)."""
    from rfverify.cli_text import markdown_table, table

    if args.format != "table" and args.what != "checks":
        raise UsageError(f"--format markdown is for `rfverify list checks`, not `list {args.what}`")
    if args.what == "zoo":
        from rfverify.studies.zoo import ZOO

        from rfverify.report.mathtext import plain

        print(table(("name", "kind", "implementation", "what it is"),
                    [(e.name, e.kind, e.implementation, plain(e.doc)) for e in ZOO]))
    elif args.what == "kernels":
        from rfverify.kernels import kernel_names, kernel_spec

        specs = [kernel_spec(name) for name in kernel_names()]
        rows = [(s.name, "kernel", ", ".join(f"{k}={p.default!r}" for k, p in s.params.items()) or "—", s.doc)
                for s in specs]
        print(table(("name", "kind", "parameters (defaults)", "what it is"), rows))
    else:
        from rfverify.kinds import CATALOGUE_HEADERS, catalogue

        if args.format == "markdown":
            print(markdown_table(CATALOGUE_HEADERS, [(f"`{r[0]}`",) + tuple(r[1:]) for r in catalogue()]))
        else:
            print(table(CATALOGUE_HEADERS, catalogue()))
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    import json

    from rfverify.studies.bench import format_table, run_structured_benchmarks

    with _bar(0, args, "benchmark group") as bar:
        rows = run_structured_benchmarks(quick=args.quick, progress=_group_progress(bar))
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

    from rfverify.report.calibration_pages import calibration_markdown, write_calibration
    from rfverify.studies.calibration import CALIBRATION_REFERENCES, calibrate, load_mutants
    from rfverify.kinds import KINDS
    from rfverify.kinds.base import parse_int
    from rfverify.studies.zoo import zoo_entries

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
    ints = {o: parse_int(getattr(args, o), "--" + o.replace("_", "-"))
            for o in ("fa_seeds", "power_seeds", "scan_seeds", "seed_base", "jobs")}
    eq = None if args.equivalent_seeds is None else parse_int(args.equivalent_seeds, "--equivalent-seeds")
    if ints["jobs"] < 1:
        raise UsageError(f"--jobs must be at least 1, got {ints['jobs']}")
    t0 = time.perf_counter()
    with _executor(args) as executor, _bar(0, args, "unit") as bar:
        doc = calibrate(references=refs, library=args.mutants, mutants=mutants,
                        profiles=args.profile or ["quick", "default"], fa_seeds=ints["fa_seeds"],
                        power_seeds=ints["power_seeds"], scan_seeds=ints["scan_seeds"], equivalent_seeds=eq,
                        seed_base=ints["seed_base"], jobs=ints["jobs"], executor=executor,
                        progress=lambda i, n, _elapsed: bar.units(i, n, "calibrate"))
    doc["command"] = _calibrate_command(args)
    paths = write_calibration(doc, args.out)

    print(calibration_markdown(doc))
    print(f"wrote {', '.join(str(p) for p in paths)} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    return 1 if doc["flags"] else 0


def _resolve_outputs(args: argparse.Namespace) -> None:
    """Make every output path absolute before any plug-in code runs (importing a plug-in, or the plug-in
    itself, may change the working directory; the outputs still go where the user asked)."""
    import os

    args.given_paths = {}  # as typed, for the commands shown in the reports
    for attr in ("json", "report", "out"):
        value = getattr(args, attr, None)
        if isinstance(value, str) and value and value != "-":
            args.given_paths[attr] = value
            setattr(args, attr, os.path.abspath(value))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    from rfverify.containment import guard
    from rfverify.containment.supervise import freeze_settings

    freeze_settings()  # rfverify's environment, read before any plug-in is imported: none can change it

    guard.SHOW_TRACEBACKS = debug  # the plug-in's own tracebacks, as they happen (also in the child)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        args.argv = argv  # a configuration that cannot be built is reproduced by the command as given
        _resolve_outputs(args)
        command = COMMANDS.get(args.command)
        if command is not None:
            return command(args)
        parser.print_help()
        print("rfverify: error: say what to do: rfverify check KIND MODULE:ATTR, report, list, ... (see above)",
              file=sys.stderr)
        return 2
    except RfverifyError as exc:  # UsageError and PluginError: one line, exit 2
        if debug:
            traceback.print_exc()
        print(f"rfverify: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError as exc:
        if stdout_closed(exc):  # `rfverify list zoo | head`: stop quietly, as Unix tools do (128 + SIGPIPE)
            return EXIT_SIGPIPE
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


def _cmd_tables(args: argparse.Namespace) -> int:
    from rfverify.highprec.maxout import write_tables

    for path in write_tables(args.out):
        print(path)
    return 0


def _cmd_ecosystem(args: argparse.Namespace) -> int:
    from rfverify.studies.ecosystem import main as ecosystem_main

    return ecosystem_main(args)


#: Each sub-command and the function that runs it (its parser is built by :func:`build_parser`).
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "check": _cmd_check, "report": _cmd_report, "claims": _cmd_claims, "tables": _cmd_tables,
    "calibrate": _cmd_calibrate, "list": _cmd_list, "bench": _cmd_bench, "ecosystem": _cmd_ecosystem,
}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
