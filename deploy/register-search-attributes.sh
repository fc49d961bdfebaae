#!/bin/sh
# Registers the search attributes durable-react-agent publishes (AgentStatus: where a run is; AgentPendingTools: the
# tools waiting for a person) in one namespace. docker-compose.yml runs it once per `up` in the `temporal-setup`
# service (temporalio/admin-tools image); any machine with the Temporal CLI can run it against another cluster:
#
#   TEMPORAL_ADDRESS=temporal.example:7233 TEMPORAL_NAMESPACE=agents sh deploy/register-search-attributes.sh
#
# Idempotent: an attribute that already exists with the same type is left alone. It waits (SETUP_WAIT_SECONDS,
# default 300) for the server to answer and the namespace to exist, since on a first start the database schema and
# the namespace are still being set up. An attribute that exists with another type fails at once (exit 2): a search
# attribute's type cannot be changed. Any other failure after the wait exits 1.
set -eu

address="${TEMPORAL_ADDRESS:-temporal:7233}"
namespace="${TEMPORAL_NAMESPACE:-default}"
wait_seconds="${SETUP_WAIT_SECONDS:-300}"

# NAME=Type, what the workflow sets (src/shared/search-attributes.ts). Types as the Temporal CLI spells them.
ATTRIBUTES='
AgentStatus=Keyword
AgentPendingTools=KeywordList
'

deadline=$(($(date +%s) + wait_seconds))

log() { printf 'temporal-setup: %s\n' "$*"; }

# Runs the Temporal CLI against the server; what it printed (stdout and stderr) is left in $out.
cli() { out=$(temporal "$@" --address "$address" --command-timeout 10s 2>&1); }

# Gives up (exit 1) once the deadline has passed, else waits a moment before the caller tries again.
again_or_give_up() {
  if [ "$(date +%s)" -ge "$deadline" ]; then
    log "gave up after ${wait_seconds}s: $1"
    log "last answer: $out"
    exit 1
  fi
  sleep 2
}

# Runs the CLI command "$@" until it succeeds; $1 says what is awaited.
wait_for() {
  what=$1
  shift
  until cli "$@"; do again_or_give_up "waiting for $what"; done
}

log "waiting for the Temporal server at $address"
wait_for "the Temporal server at $address" operator cluster health
log "waiting for namespace $namespace"
wait_for "namespace $namespace to exist" operator namespace describe --namespace "$namespace"
# Fails for a moment after the namespace was created, until the server's namespace cache has it.
wait_for "the search attributes of namespace $namespace" operator search-attribute list --namespace "$namespace"

for pair in $ATTRIBUTES; do
  name=${pair%%=*}
  type=${pair#*=}
  until cli operator search-attribute create --namespace "$namespace" --name "$name" --type "$type"; do
    case $out in
      *"different type"*)
        log "cannot register $name as $type in namespace $namespace: $out"
        log "a search attribute's type cannot be changed: remove it first" \
          "(temporal operator search-attribute remove) or use another namespace"
        exit 2
        ;;
      # Registered by someone else between our list and our create: the check below verifies its type.
      *"already exists"*) break ;;
    esac
    again_or_give_up "registering $name ($type) in namespace $namespace"
  done
done

# Check the outcome rather than trust the messages: every attribute present, with its type.
wait_for "the search attributes of namespace $namespace" operator search-attribute list --namespace "$namespace"
for pair in $ATTRIBUTES; do
  name=${pair%%=*}
  type=${pair#*=}
  if ! printf '%s\n' "$out" | grep -Eq "^[[:space:]]*$name[[:space:]]+$type[[:space:]]*\$"; then
    log "$name is not registered as $type in namespace $namespace after all:"
    printf '%s\n' "$out"
    exit 1
  fi
  log "$name ($type) is registered in namespace $namespace"
done
