#!/bin/sh
# Creates the namespace durable-react-agent runs in, if missing, with the retention finished runs (and their traces)
# stay readable. docker-compose.yml runs it in the `temporal-setup` one-shot service (temporalio/admin-tools image),
# before deploy/register-search-attributes.sh; `npm run cluster` runs both against its own cluster. Idempotent: an
# existing namespace is left as it is (change its retention with `temporal operator namespace update`).
#
#   TEMPORAL_ADDRESS=temporal.example:7233 TEMPORAL_NAMESPACE=agents sh deploy/temporal/create-namespace.sh
#
# Waits (SETUP_WAIT_SECONDS, default 300) for the frontend to answer; exits 1 with the CLI's answer after.
set -eu

address="${TEMPORAL_ADDRESS:-temporal:7233}"
namespace="${TEMPORAL_NAMESPACE:-default}"
retention="${TEMPORAL_NAMESPACE_RETENTION:-168h}"
wait_seconds="${SETUP_WAIT_SECONDS:-300}"
deadline=$(($(date +%s) + wait_seconds))

log() { printf 'temporal-setup: %s\n' "$*"; }
cli() { out=$(temporal "$@" --address "$address" --command-timeout 10s 2>&1); }

log "waiting for the Temporal server at $address"
until cli operator namespace describe --namespace "$namespace"; do
  case $out in
    *"not found"* | *"NotFound"*)
      if cli operator namespace create --namespace "$namespace" --retention "$retention"; then
        log "created namespace $namespace (retention $retention)"
      fi
      ;;
  esac
  if [ "$(date +%s)" -ge "$deadline" ]; then
    log "gave up after ${wait_seconds}s waiting for namespace $namespace: $out"
    exit 1
  fi
  sleep 1
done
log "namespace $namespace exists"
