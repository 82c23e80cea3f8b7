# One image for the api, worker and beat services of docker-compose.yml.

# The memory explorer's npm packages (app/explorer/package-lock.json), copied into the image below.
FROM node:20-slim AS explorer
WORKDIR /explorer
COPY app/explorer/package.json app/explorer/package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
WORKDIR /srv/hippograph

# Runtime dependencies first (pinned by constraints.txt), so code changes do not reinstall torch: those
# of both distributions, the server's (pyproject.toml) and the light client's (clients/python), less
# the client itself (installed from its folder below, never from the package index).
COPY pyproject.toml constraints.txt ./
COPY clients/python/pyproject.toml clients/python/pyproject.toml
RUN python -c "import tomllib; deps = [d for f in ('pyproject.toml', 'clients/python/pyproject.toml') for d in tomllib.load(open(f, 'rb'))['project']['dependencies'] if not d.startswith('hippograph-client')]; print('\n'.join(deps))" \
      > /tmp/requirements.txt \
 && pip install -c constraints.txt -r /tmp/requirements.txt

# The code runs from this folder (it reads cypher/ beside app/). Every package the console scripts
# and the services import: app and jobs (the server), clients/python/hippograph (the `hippograph`
# command, client and MCP bridge); tests/test_dockerfile.py checks this list against both pyproject.toml.
COPY README.md ./
COPY app app
COPY jobs jobs
COPY cypher cypher
COPY clients/python clients/python
COPY --from=explorer /explorer/node_modules app/explorer/node_modules
RUN pip install --no-deps -e ./clients/python -e . \
 && useradd --create-home hippograph && mkdir -p /data && chown hippograph /data
USER hippograph
# The embedding model's ONNX export (app/embedding/onnx_export.py), made once here instead of at first start.
RUN python -m app.embedding.onnx_export
# In a container the API listens on every interface (the settings' default is loopback).
ENV HIPPOGRAPH_DATA_DIR=/data HIPPOGRAPH_HOST=0.0.0.0
EXPOSE 8000
CMD ["python", "-m", "app"]
