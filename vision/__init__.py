"""Photo → tiles: image loading, detection, classification, layout and decoding."""
