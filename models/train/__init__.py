"""Training the bundled models (needs the train extra: torch, ultralytics). Run time never imports this."""
