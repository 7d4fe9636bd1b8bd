"""Everything rfverify runs out of its own process, and the defences around plug-in code.

* :mod:`~rfverify.containment.guard` — the guard around a call into plug-in code (time and memory limits, no
  printing, no global random state), with :mod:`~rfverify.containment.import_watch` (the global-RNG baseline moved
  past a library's first import);
* :mod:`~rfverify.containment.supervise` — the supervised child per implementation (death, hang, memory, signals);
  :mod:`~rfverify.containment.host` — the plug-in's process serving operations (every kind's plug-in:
  :mod:`~rfverify.containment.hosted_kinds` for samplers, rules, transforms and kernels), and
  :mod:`~rfverify.containment.remote` — the data-only wire from it (the harness judges);
  :mod:`~rfverify.containment.sentinel` — the harness's defences while a child runs (signals, descendants,
  the watchdog); :mod:`~rfverify.containment.probe` — a named plug-in imported in a throw-away child first;
  :mod:`~rfverify.containment.fresh` — a computation replayed in a fresh interpreter;
* :mod:`~rfverify.containment.executors` — batches of independent work units (in-process, local processes, Dask);
  :mod:`~rfverify.containment.threads` — the one place that pins BLAS and OpenMP thread pools.
"""
