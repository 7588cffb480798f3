#!/bin/bash
# The RunPod backend's suite (t302) with runpod.api = graphql: everything over GraphQL, as
# before REST v2.
RUNPOD_API=graphql exec bash "$(dirname "$0")/t302-runpod.sh"
