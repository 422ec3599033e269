# A codeloop worker image: Node 20 with git, Python and ripgrep (search_codebase) for the agent's tools, pytest and ruff
# for the gates of Python projects (without them those gates cannot run, and their tasks end unverified), and
# bubblewrap, the sandbox every
# command of the agent runs in (docker-compose.yml gives the worker the settings the sandbox needs).
FROM node:20-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends git python3 python3-pip python3-venv python3-pytest ripgrep bubblewrap \
 && pip3 install --no-cache-dir --break-system-packages ruff==0.17.6 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
ENV CODELOOP_LOG_LEVEL=INFO
CMD ["npm", "run", "worker"]
