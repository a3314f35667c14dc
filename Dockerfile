# agentcost in a container: `docker build -t agentcost .` then, from a folder of scenarios,
#   docker run --rm --network none -v "$PWD:/work" agentcost estimate scenarios/bugfix.yaml
# Everything it needs (prices, tokenizer data) is installed at build time: it runs offline.
FROM python:3.11-slim

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

WORKDIR /src
COPY pyproject.toml README.md ./
COPY agentcost ./agentcost
RUN pip install . && rm -rf /src \
    && useradd --create-home --uid 1000 agentcost

USER agentcost
# A first run at build time would warm the cache; it is left empty so that the image stays small
# and reproducible. Mount a volume on /home/agentcost/.cache to keep it between runs.
WORKDIR /work
ENTRYPOINT ["agentcost"]
CMD ["--help"]
