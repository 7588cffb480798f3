#!/bin/bash
# t310 (reads retried through 500s, a launch answered 500 looked up and never sent twice, a
# stop answered 500 reported) with runpod.api = v2: the same rules over REST v2's requests.
RUNPOD_API=v2 exec bash "$(dirname "$0")/t310-read-retries.sh"
