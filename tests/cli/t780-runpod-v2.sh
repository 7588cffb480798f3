#!/bin/bash
# The RunPod backend's suite (t302) with runpod.api = v2: the pod's life, offers, metrics and
# errors over REST v2 alone, GraphQL only for what v2 lacks.
RUNPOD_API=v2 exec bash "$(dirname "$0")/t302-runpod.sh"
