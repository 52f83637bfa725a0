"""Camera intrinsics, table-plane homography, seat map and set palette (numpy + OpenCV).

So far: hubcam's printed ChArUco board (``board``), the camera's intrinsics and lens distortion from
photos of it (``camera``), the versioned profile that keeps them (``profile``), and the table's plane
as the tiles found on it show it (``table_plane``); knows nothing of game rules or of the models.
"""
