#!/bin/sh
# Creates or upgrades Temporal's PostgreSQL databases and schemas. Safe to run on every start: each step is idempotent
# (an existing database is kept, the versioning tables are created only if absent, and update-schema applies only the
# versions a database lacks). The schemas are the ones built into temporal-sql-tool, so they match its server version.
# Both `codeloop cluster up` and docker-compose.yml run it.
#
# Environment: SQL_HOST, SQL_PORT, SQL_USER, SQL_PASSWORD (temporal-sql-tool's own variables); TEMPORAL_SQL_TOOL,
# the tool's path (default: temporal-sql-tool on PATH); DBNAME and VISIBILITY_DBNAME as in codeloop.yaml.
set -eu
tool="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"
export SQL_PLUGIN=postgres12
database="${DBNAME:-temporal}"
attempt=0
# Creating the database is the first step and proves the server answers; until it does, wait.
until output="$("$tool" --db "$database" create-database 2>&1)"; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "$output" >&2
    echo "PostgreSQL at ${SQL_HOST:-127.0.0.1}:${SQL_PORT:-5432} refused the schema setup for 60 s (see above)" >&2
    exit 1
  fi
  echo "waiting for PostgreSQL at ${SQL_HOST:-127.0.0.1}:${SQL_PORT:-5432}"
  sleep 1
done
for pair in "$database:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  db="${pair%%:*}"
  schema="postgresql/v12/${pair#*:}"
  "$tool" --db "$db" create-database
  "$tool" --db "$db" setup-schema -v 0.0
  "$tool" --db "$db" update-schema --schema-name "$schema"
  echo "database $db: schema $schema up to date"
done
