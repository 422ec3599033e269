#!/bin/sh
# Creates the `default` namespace (30-day retention) once the server answers. The plain temporalio/server image
# creates no namespace, and codeloop's setup and workers need one. Safe to run on every start: an existing namespace
# is left as it is.
set -eu
namespace="${TEMPORAL_NAMESPACE:-default}"
attempt=0
# The compose healthcheck only sees the port open; the frontend may still be starting its services.
until temporal operator cluster health >/dev/null 2>&1; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then echo "Temporal at $TEMPORAL_ADDRESS is not healthy after 2 minutes" >&2; exit 1; fi
  echo "waiting for Temporal at $TEMPORAL_ADDRESS"
  sleep 2
done
if temporal operator namespace describe --namespace "$namespace" >/dev/null 2>&1; then
  echo "namespace $namespace exists"
else
  temporal operator namespace create --namespace "$namespace" --retention 720h
  echo "namespace $namespace created"
fi
