import json, sys, time, dataclasses
from service.operations import run_operation, RequestError
from service.limits import DEFAULT_LIMITS
lim = dataclasses.replace(DEFAULT_LIMITS, solver_budget_ms=int(sys.argv[3]) if len(sys.argv) > 3 else 1000)
corpus = json.load(open(sys.argv[1])); res = []
for c in corpus:
    t = time.perf_counter()
    try:
        a = run_operation("moves/suggest", c, "en", limits=lim)
        res.append({k: a.get(k) for k in ("value", "optimal_proven", "least_change_proven", "budget_exhausted", "after", "played")} | {"t": time.perf_counter() - t})
    except RequestError as e:
        res.append({"err": e.status, "t": time.perf_counter() - t})
    except Exception as e:
        res.append({"crash": repr(e)})
json.dump(res, open(sys.argv[2], "w"))
