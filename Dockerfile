# agentcost in a container: `docker build -t agentcost .` then, from a folder of scenarios (a git
# checkout for `diff --base-ref`), as yourself, so that git trusts the checkout and what it writes
# (`-o`) is yours (docs/ci.md, "Docker"):
#   docker run --rm --network none --user "$(id -u):$(id -g)" -v "$PWD:/work" agentcost \
#     estimate scenarios/bugfix.yaml
# Everything it needs (prices, tokenizer data) is installed at build time: it runs offline.
FROM python:3.11-slim

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    XDG_CACHE_HOME=/cache

# git: `agentcost diff --base-ref REF` reads the base side with git (infra/gitread.py)
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /src
COPY pyproject.toml README.md constraints.txt ./
COPY agentcost ./agentcost
# Every dependency, direct or not, at the version constraints.txt pins (checked against
# pyproject.toml's ranges by tests/test_comment_total.py): the same image from the same commit.
RUN pip install --constraint constraints.txt . && rm -rf /src \
    && useradd --create-home --uid 1000 agentcost \
    && mkdir -m 1777 /cache

# The default user when `docker run` is given no --user; any --user "UID:GID" works as well: the
# cache goes in /cache/agentcost, made by and private to the user who runs it (mount a directory of
# yours there, `-v "$HOME/.cache/agentcost:/cache/agentcost"`, to keep it between runs).
USER agentcost
WORKDIR /work
ENTRYPOINT ["agentcost"]
CMD ["--help"]
