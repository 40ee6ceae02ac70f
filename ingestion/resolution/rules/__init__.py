"""The rules of entity resolution, by family: ``forms`` (which forms are names, how keyed and labelled), ``grouping``
(the first groups), ``joins`` and ``partial`` (which groups are one entity), ``apart`` (which cannot be), ``naming``
(the entities' names and labels). ``ingestion.resolution.pipeline.RULES`` lists them in the order they run."""
