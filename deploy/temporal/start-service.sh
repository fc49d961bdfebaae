#!/bin/sh
# Starts one Temporal service (frontend, history, matching or worker) with config/production.yaml. docker-compose.yml
# runs it in each server container, `npm run cluster` runs it for each service process, so both start the server the
# same way:
#
#   sh deploy/temporal/start-service.sh history
#
# BIND_ON_IP defaults to this host's address (`hostname -i`: the container's own IP under compose), which the
# service binds and announces to the others; the cluster script sets 127.0.0.1. TEMPORAL_SERVER names the binary
# when it is not `temporal-server` on PATH. The server replaces this shell (exec), so signals reach it directly.
set -eu

service="${1:?usage: start-service.sh frontend|history|matching|worker}"
here=$(cd "$(dirname "$0")" && pwd)

if [ -z "${BIND_ON_IP:-}" ]; then
  # Not in a pipe: under `set -e` a failing `hostname -i` would be hidden by the pipe's last command.
  addresses=$(hostname -i)
  BIND_ON_IP=${addresses%% *}
fi
if [ -z "$BIND_ON_IP" ]; then
  echo "start-service.sh: no address to bind: set BIND_ON_IP" >&2
  exit 1
fi
export BIND_ON_IP
export DYNAMIC_CONFIG_FILE_PATH="${DYNAMIC_CONFIG_FILE_PATH:-$here/dynamicconfig/production.yaml}"

exec "${TEMPORAL_SERVER:-temporal-server}" --root "$here" --env production --allow-no-auth start --service "$service"
