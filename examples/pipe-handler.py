#!/usr/bin/env python3
"""A `qctl consume --pipe` handler: one JSON job per line in, one JSON answer per job out."""
import base64, json, sys

for line in sys.stdin:
    job = json.loads(line)
    data = job["data"].encode() if "data" in job else base64.b64decode(job["data_b64"])
    try:
        print(f"job {job['id']}: {len(data)} bytes", file=sys.stderr)  # the work goes here
        answer = {"id": job["id"], "ok": True}
    except Exception as e:  # a failed job: retried by qctl, then dead
        answer = {"id": job["id"], "ok": False, "error": str(e)}
    print(json.dumps(answer), flush=True)  # stdout carries the answers only
