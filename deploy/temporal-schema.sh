#!/bin/sh
# Creates or upgrades Temporal's PostgreSQL schemas. Safe to run on every start: existing databases are kept and only
# upgraded.
set -eu
until nc -z postgresql 5432; do echo "waiting for postgresql"; sleep 1; done
for db in temporal temporal_visibility; do
  temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u "$POSTGRES_USER" --db "$db" create 2>/dev/null || echo "database $db exists"
  temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u "$POSTGRES_USER" --db "$db" setup-schema -v 0.0 2>/dev/null || echo "schema of $db exists"
done
temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u "$POSTGRES_USER" --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
temporal-sql-tool --plugin postgres12 --ep postgresql -p 5432 -u "$POSTGRES_USER" --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned
echo "temporal schemas ready"
