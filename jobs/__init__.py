"""Background work: the Celery app, its tasks and the beat schedule."""
