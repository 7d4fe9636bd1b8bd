"""False alarms of explore over the feature-map zoo: python zoo_explore.py SEED0 NSEEDS OUT.jsonl"""
import json, sys, time, warnings
import rfverify
from rfverify.studies.zoo import ZOO
from rfverify.seeding import DEFAULT_SEED
s0, ns, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
profile = sys.argv[4] if len(sys.argv) > 4 else "default"
entries = [e for e in ZOO if e.kind == "feature-map"]
with open(out, "a") as fh:
    for k in range(s0, s0 + ns):
        seed = DEFAULT_SEED if k == 0 else k
        for e in entries:
            t = time.time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = rfverify.verify(e.implementation, seed=seed, profile=profile, checks=["explore"], metrics=False,
                                    **e.options)
            x = r.results[0]
            fh.write(json.dumps({"entry": e.name, "seed": seed, "status": x.status, "secs": round(time.time() - t, 2),
                                 "message": x.message[:1500], "reproduce": x.reproduce}) + "\n")
            fh.flush()
