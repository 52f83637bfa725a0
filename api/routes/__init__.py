"""One router per resource: photos (score, analyze), games, pages."""
