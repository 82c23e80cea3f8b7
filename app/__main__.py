"""`python -m app`: serve the API on HIPPOGRAPH_PORT (one process; never with --workers/--reload,
since the embedded run hosts the only Celery beat and owns the vector folder)."""

import uvicorn

from app.api.main import create_app
from app.observability.logs import configure_logging
from app.settings import get_settings


def main() -> None:
    settings = get_settings()
    configure_logging(settings.log_format)
    # log_config=None: uvicorn's loggers propagate to ours (JSON lines); its access log is off, since
    # app/observability/middleware.py logs every request with its request id, route template and agent.
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        timeout_keep_alive=settings.keep_alive_s,
        log_level="info",
        log_config=None,
        access_log=False,
    )


if __name__ == "__main__":
    main()
