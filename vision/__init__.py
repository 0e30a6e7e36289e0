"""Photo → tiles: image loading, detection, classification, layout and decoding."""
import os as _os

# ONNX Runtime 1.32's wheels keep a device id and a queue of usage events under ~/.cache/Microsoft/DeveloperTools
# and upload them to Microsoft (1DS telemetry; ``ORT_DISABLE_TELEMETRY``, read when onnxruntime is first imported).
# The product reads photos offline and writes only where the user said (a breaker found `serve` writing outside its
# --data-dir, and `photo --no-history` writing at all): off, unless the user's environment says otherwise
_os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
