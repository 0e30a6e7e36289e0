"""vision.crops.crop_tile: the one crop definition shared by training and inference."""
import numpy as np
import pytest

from vision.crops import PAD_VALUE, crop_batch, crop_bounds, crop_tile


def _image():
    img = np.zeros((100, 200, 3), np.uint8)
    img[20:60, 50:80] = (255, 0, 0)  # a red "tile" 30 wide, 40 tall
    return img


def test_stretch_fills_output_with_the_box():
    out = crop_tile(_image(), (50, 20, 80, 60), 32, 0.0)
    assert out.shape == (32, 32, 3) and out.dtype == np.uint8
    assert (out[..., 0] == 255).all() and (out[..., 1] == 0).all()


def test_margin_grows_box_by_fraction_of_each_side():
    # 30 × 40 box, margin 0.5 → 15 px left/right, 20 px top/bottom: 60 × 80 crop, tile in the middle half
    assert crop_bounds((50, 20, 80, 60), 0.5) == (35, 0, 95, 80)
    out = crop_tile(_image(), (50, 20, 80, 60), 64, 0.5)
    assert out[32, 32, 0] == 255 and out[2, 2, 0] == 0 and out[32, 2, 0] == 0


def test_outside_image_is_grey_pad():
    out = crop_tile(_image(), (-40, -40, 0, 0), 16, 0.0)
    assert (out == PAD_VALUE).all()
    half = crop_tile(_image(), (180, 0, 220, 10), 40, 0.0)  # right half outside the 200-px image
    assert (half[:, 25:] == PAD_VALUE).all() and (half[:, :15] == 0).all()


def test_letterbox_keeps_aspect():
    out = crop_tile(_image(), (50, 20, 80, 60), 40, 0.0, resize="letterbox")
    # 30 × 40 → 30 × 40 in a 40 × 40 square: 5 px grey each side
    assert (out[:, :5] == PAD_VALUE).all() and (out[:, 35:] == PAD_VALUE).all()
    assert (out[:, 6:34, 0] == 255).all()


def test_bad_input_raises():
    with pytest.raises(ValueError):
        crop_tile(_image(), (10, 10, 10, 20), 16, 0.1)
    with pytest.raises(ValueError):
        crop_tile(_image(), (0, 0, 5, 5), 16, 0.1, resize="squash")
    with pytest.raises(ValueError):
        crop_tile(np.zeros((10, 10), np.uint8), (0, 0, 5, 5), 16, 0.1)


def test_batch_is_nchw_float_0_1():
    b = crop_batch(_image(), np.array([[50, 20, 80, 60], [0, 0, 10, 10]]), 24, 0.1)
    assert b.shape == (2, 3, 24, 24) and b.dtype == np.float32
    assert 0.0 <= b.min() and b.max() <= 1.0
    assert crop_batch(_image(), np.zeros((0, 4)), 24, 0.1).shape == (0, 3, 24, 24)
