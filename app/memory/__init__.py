"""Memory-graph operations over the engines: nodes and links, learning, forgetting, transfer."""
