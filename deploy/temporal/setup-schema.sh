#!/bin/sh
# Creates (or brings up to date) the two PostgreSQL databases of the production topology, `temporal` and
# `temporal_visibility`, with Temporal's schema tool. docker-compose.yml runs it in the `temporal-schema` one-shot
# service (temporalio/admin-tools image); `npm run cluster` runs it against its own PostgreSQL. Idempotent: on a set
# up database it changes nothing. The schema files are the ones built into the tool (--schema-name), so the tool's
# version is the schema's version.
#
#   POSTGRES_SEEDS=db.example DB_PORT=5432 POSTGRES_USER=temporal POSTGRES_PWD=... sh deploy/temporal/setup-schema.sh
#
# Waits (SETUP_WAIT_SECONDS, default 120) for PostgreSQL to accept connections; exits 1 with the tool's error after.
set -eu

tool="${SQL_TOOL:-temporal-sql-tool}"
wait_seconds="${SETUP_WAIT_SECONDS:-120}"
deadline=$(($(date +%s) + wait_seconds))

log() { printf 'temporal-schema: %s\n' "$*"; }

# The connection flags every call shares; the password travels in SQL_PASSWORD, not on the command line.
export SQL_PASSWORD="${POSTGRES_PWD:-temporal}"
sql() {
  "$tool" --plugin postgres12 --endpoint "${POSTGRES_SEEDS:-postgres}" --port "${DB_PORT:-5432}" \
    --user "${POSTGRES_USER:-temporal}" "$@"
}

log "waiting for PostgreSQL at ${POSTGRES_SEEDS:-postgres}:${DB_PORT:-5432}"
# create-database connects to the `postgres` database and leaves an existing database alone (exit 0).
until out=$(sql --database "${DBNAME:-temporal}" create-database --defaultdb postgres 2>&1); do
  if [ "$(date +%s)" -ge "$deadline" ]; then
    log "gave up after ${wait_seconds}s: $(printf '%s' "$out" | tail -n 1)"
    exit 1
  fi
  sleep 1
done

for pair in "${DBNAME:-temporal}=temporal" "${VISIBILITY_DBNAME:-temporal_visibility}=visibility"; do
  database=${pair%%=*}
  schema=${pair#*=}
  sql --database "$database" create-database --defaultdb postgres
  # Version 0.0 marks an empty database as managed (a no-op when it already is); update-schema then applies every
  # version after the database's own, or none.
  sql --database "$database" setup-schema --version 0.0
  sql --database "$database" update-schema --schema-name "postgresql/v12/$schema"
  log "database $database is set up"
done
