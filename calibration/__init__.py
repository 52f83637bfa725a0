"""Camera intrinsics, table-plane homography, seat map and set palette (numpy + OpenCV).

So far the table's plane as the tiles found on it show it (``table_plane``); knows nothing of
game rules or of the models.
"""
