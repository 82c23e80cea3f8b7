"""`python -m app`: serve the API on HIPPOGRAPH_PORT (one process; never with --workers/--reload,
since the embedded run hosts the only Celery beat and owns the vector folder)."""

import uvicorn

from app.api.main import create_app
from app.settings import get_settings


def main() -> None:
    settings = get_settings()
    uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_level="info")


if __name__ == "__main__":
    main()
