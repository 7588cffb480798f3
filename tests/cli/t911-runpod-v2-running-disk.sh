#!/bin/bash
# t910 over REST v2: the running pod's disks read from disk and mounts.persistent.size.
RUNPOD_API=v2 exec bash "$(dirname "$0")/t910-runpod-running-disk.sh"
