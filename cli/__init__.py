"""The ``csillag`` command line: every command, the conventions they share, and nothing they do.

The top layer: it may import every other package, and none imports it — except the modules that keep a documented
command's old name (``python -m jobs.pipeline``/``jobs.stage``/``jobs.summary``, ``python -m tools.ask``,
``python -m api``, and ``jobs/pipeline.py``/``jobs/stage.py`` as spark-submit applications), each of which only runs
one command of this package (pyproject's import-linter contracts list them). Nothing is imported here, so that a
spark-submit driver loading ``cli.ingest`` does not load the API's commands.
"""
