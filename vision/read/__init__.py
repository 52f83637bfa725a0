"""Reading pips: each tile rectified, split at its divider, each half's pips counted."""
