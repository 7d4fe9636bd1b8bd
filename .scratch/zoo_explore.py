"""False alarms of explore over the feature-map zoo: python zoo_explore.py SEED0 NSEEDS OUT.jsonl [profile]"""
import json, sys, time, warnings
import rfverify
from rfverify.studies.zoo import ZOO
from rfverify.seeding import DEFAULT_SEED
s0, ns, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
profile = sys.argv[4] if len(sys.argv) > 4 else "default"
entries = [e for e in ZOO if e.kind in ("feature-map", "orthogonal")]
from rfverify.kinds import get_kind
with open(out, "a") as fh:
    for k in range(s0, s0 + ns):
        seed = DEFAULT_SEED if k == 0 else k
        for e in entries:
            t = time.time(); tp = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                opts = dict(e.options)
                if e.kind == "feature-map":
                    opts["metrics"] = False
                r = get_kind(e.kind).verify_function()(e.implementation, seed=seed, profile=profile, checks=["explore"],
                                                       xfail={k: v for k, v in e.xfail.items() if k == "explore"} or None,
                                                       **opts)
            x = r.results[0]
            fh.write(json.dumps({"entry": e.name, "kind": e.kind, "seed": seed, "status": x.status,
                                 "secs": round(time.time() - t, 2), "cpu": round(time.process_time() - tp, 2),
                                 "message": x.message[:1500], "reproduce": x.reproduce}) + "\n")
            fh.flush()
