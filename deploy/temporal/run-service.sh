#!/bin/sh
# Runs one Temporal service (frontend, history, matching or worker) from codeloop.yaml beside this script. Both
# `codeloop cluster up` and docker-compose.yml start every service through it, with the same configuration.
#
#   run-service.sh <service>     environment: see codeloop.yaml; TEMPORAL_SERVER is the server binary
set -eu
service="$1"
config_dir="$(cd "$(dirname "$0")" && pwd)"
# The dynamic configuration beside this script, unless another is named.
DYNAMIC_CONFIG_FILE_PATH="${DYNAMIC_CONFIG_FILE_PATH:-$config_dir/dynamic-config.yaml}"
export DYNAMIC_CONFIG_FILE_PATH
if [ -z "${TEMPORAL_BROADCAST_ADDRESS:-}" ] && [ "${BIND_ON_IP:-127.0.0.1}" = "0.0.0.0" ]; then
  # Bound to every interface (a container): the other services reach this one at the host's own address.
  TEMPORAL_BROADCAST_ADDRESS="$(hostname -i | cut -d ' ' -f 1)"
  export TEMPORAL_BROADCAST_ADDRESS
fi
exec "${TEMPORAL_SERVER:-temporal-server}" --root "$config_dir" --config . --env codeloop --allow-no-auth start --service "$service"
