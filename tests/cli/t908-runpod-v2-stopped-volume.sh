#!/bin/bash
# t907 over REST v2: the stopped pod's volume read from mounts.persistent.size.
RUNPOD_API=v2 exec bash "$(dirname "$0")/t907-runpod-stopped-volume.sh"
