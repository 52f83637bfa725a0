"""Camera intrinsics, table-plane homography, seat map and set palette (numpy + OpenCV).

Nothing is here yet; knows nothing of game rules.
"""
