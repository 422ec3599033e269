# A codeloop worker image: Node 20 with git and Python for the agent's tools.
FROM node:20-bookworm
RUN apt-get update \
 && apt-get install -y --no-install-recommends git python3 python3-pip python3-venv ripgrep \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
ENV CODELOOP_LOG_LEVEL=INFO
CMD ["npm", "run", "worker"]
