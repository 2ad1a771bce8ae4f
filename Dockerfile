# The bot's image: `docker compose up` (compose.yaml) runs it as several processes on one
# PostgreSQL. The same image runs every step, with the commands the tests run:
#   python -m bot migrate       the schema, once per deploy (tests/multi/test_deploy.py)
#   python -m bot solve --all   the strategy tables into the shared STRATEGY_DIR
#   python -m bot               one process, holding the shards SHARD_COUNT and SHARD_IDS or
#                               CLUSTER_INDEX/CLUSTER_COUNT name
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# The source tree itself, installed in place: the bot reads docs/rules.md beside it
# (/poker rules) and its migrations from db/.
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY db ./db
COPY docs ./docs
RUN pip install -e . \
    && useradd --system --uid 10001 --home-dir /app dicepoker \
    && mkdir -p /app/data/strategy \
    && chown -R dicepoker /app/data

USER dicepoker
# The tables are computed once (solve --all) into a volume every process shares.
ENV STRATEGY_DIR=/app/data/strategy
VOLUME ["/app/data/strategy"]

CMD ["python", "-m", "bot"]
