"""In-tree plugins, one package per plugin, named as upstream's Go packages."""
