"""Developer commands that write files of the repository (``make spec``)."""
