"""Request and response models of the JSON API (they make the OpenAPI schema at ``/api/openapi.json``).

Field names follow :class:`scoring.hand.Context`, :meth:`scoring.engine.ScoredHand.to_json`,
:func:`vision.pipeline.to_json` and :class:`scoring.settle.Settlement`; tile codes are those of
:mod:`scoring.tiles` (``1m``–``9m``, ``1p``–``9p``, ``1s``–``9s``, ``1z``–``7z`` = East South West
North White Green Red, ``1f``–``4f`` flowers, ``1y``–``4y`` seasons, ``0x`` a face-down tile).
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictInt

from scoring.errors import HandError
from scoring.hand import MAX_DEALER_STREAK, MAX_DISCARDS, MAX_SCORE, WIN_BY, WON_FIELDS, Context
from scoring.notation import is_whole_number
from scoring.settle import player_label

Wind = Literal["E", "S", "W", "N"]
WinBy = Literal[WIN_BY]  # type: ignore[valid-type]
OptionValue = str | int | float | bool


def _digits(v: Any) -> Any:
    """A form's whole number as digits 0-9 (pydantic, as int(), takes "1_0" as 10: a tester's dealer_streak)."""
    if isinstance(v, str) and not is_whole_number(v):
        raise ValueError("must be a whole number (digits 0-9)")
    return v


#: a whole-number form field: digits only
WholeNumber = Annotated[int, BeforeValidator(_digits)]


def blank_is_none(v: Any) -> Any:
    """A text field with the spaces around it dropped, and a blank one (``""``, ``" "``) not given: None (a
    tester's ``"winning_tile": ""`` was taken as not given and ``" "`` refused as empty)."""
    return (v.strip() or None) if isinstance(v, str) else v


#: an optional tile: blank is not given
OptionalTile = Annotated[Optional[str], BeforeValidator(blank_is_none)]
def _label(text: str) -> str:
    """:func:`scoring.settle.player_label`, and a name of spaces alone refused as empty (a tester's "  " had been
    told "players must have distinct names, got Ann, , Cas, Dee")."""
    label = player_label(text)
    if not label:
        raise ValueError("the name is empty: give each player a name")
    return label


#: a player's label: NFC, stripped, no control or invisible character (:func:`scoring.settle.player_label`: a
#: tester's right-to-left override showed "Ann pays 002 boB", and Zoë typed two ways was two players)
Label = Annotated[str, AfterValidator(_label)]


class ContextIn(BaseModel):
    """The circumstances of the hand (:class:`scoring.hand.Context`)."""

    model_config = ConfigDict(extra="forbid")

    seat_wind: Wind = Field("E", description="own (seat) wind")
    round_wind: Wind = Field("E", description="round (prevailing) wind")
    winner: bool = Field(True, description="False scores a hand that did not go mahjong")
    win_by: WinBy = Field("discard", description="where the winning tile came from; wall/dead-wall = self-drawn")
    last_tile: bool = Field(False, description="won on the last tile of the wall / the last discard")
    first_turn: bool = Field(False, description="won with the dealt tiles or on the first discard/draw")
    announced_wait: bool = Field(False, description="a waiting hand announced in advance")
    kong_on_kong: bool = Field(False, description="won on the replacement tile after two kongs in one turn")
    dealer: Optional[bool] = Field(None, description="the player is the dealer (null: seat wind E)")
    # (strict: a count is a JSON number; `true` had been taken as 1 discard)
    dealer_streak: int = Field(0, ge=0, le=MAX_DEALER_STREAK, strict=True, description="consecutive dealer wins before this hand (004 連莊)")
    discards: Optional[int] = Field(None, ge=0, le=MAX_DISCARDS, strict=True, description="discarded tiles on the table at the win (004 十張內)")
    flags: list[str] = Field(default_factory=list, max_length=20,
                             description="ruleset-specific circumstances (see GET /api/rulesets)")

    def to_context(self) -> Context:
        """The :class:`scoring.Context`; HandError for values it refuses, and for ``winner`` false with a
        circumstance of the win (``win_by`` other than the default discard, ``last_tile``, ``first_turn``,
        ``kong_on_kong``, or a flag naming one), as the command line's ``--not-winner`` refuses them."""
        if not self.winner:
            # (they had been accepted and ignored: a non-winner's score does not depend on them)
            flags = {f.strip() for f in self.flags}
            given = ([f"win_by {self.win_by}"] if self.win_by != "discard" else []) + [
                name for name in WON_FIELDS if getattr(self, name) or name.replace("_", "-") in flags]
            if given:
                raise HandError(f"winner is false, yet {', '.join(given)} "
                                f"{'describe' if len(given) > 1 else 'describes'} how the hand was won: "
                                f"leave {'them' if len(given) > 1 else 'it'} out, or set winner true")
        return Context(
            seat_wind=self.seat_wind, round_wind=self.round_wind, winner=self.winner, win_by=self.win_by,
            last_tile=self.last_tile, first_turn=self.first_turn, announced_wait=self.announced_wait,
            kong_on_kong=self.kong_on_kong, dealer=self.dealer, dealer_streak=self.dealer_streak,
            discards=self.discards, flags=frozenset(f.strip() for f in self.flags if f.strip()))


class HandRequest(BaseModel):
    """``POST /api/hand``: a hand in notation (``scoring.notation``) and its circumstances."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"notation": "123m456p789s11z [777p]", "winning_tile": "1z", "ruleset": "nts",
                      "context": {"seat_wind": "E", "round_wind": "E", "win_by": "discard"}}]})

    notation: str = Field(..., min_length=1, max_length=200, description='e.g. "123m456p789s11z [777p] +1f win:1z"')
    winning_tile: OptionalTile = Field(None, max_length=4, description="the tile that completed the hand, e.g. 5p "
                                                                    "(blank: not given)")
    ruleset: str = Field("nts", max_length=40, description="ruleset id (GET /api/rulesets)")
    context: ContextIn = Field(default_factory=ContextIn)
    options: dict[str, OptionValue] = Field(default_factory=dict, description="ruleset options, name → value")


class LineOut(BaseModel):
    """One line of the explanation: a rule that counted, its amount and its seed source."""

    rule: str
    name: str
    kind: str
    amount: str = Field(..., description='as the CLI prints it: "+8 pts", "+1 dbl", "2×2 = +4 pts", "1000 fixed"')
    count: int
    # (int | float: a whole number stays one, as the command line's --json gives it; a new user saw 18.0 here)
    value: Union[int, float]
    points: Union[int, float]
    doublings: int
    fixed: Union[int, float]
    multiplier: Union[int, float]
    cash: Union[int, float]
    source: str = Field(..., description="seed file and line, e.g. 002_b9f4c4575200caaf.txt:13 (a rule the seed has no line for: its RULINGS entry, RULINGS 002-03)")
    detail: str
    option: str = Field(..., description="the option (value, ambiguity id) that decided this reading, if any")
    applies_to: str


class MeldOut(BaseModel):
    kind: str
    tiles: list[str]
    concealed: bool
    declared: bool
    winning: bool


class ScoreOut(BaseModel):
    """A scored hand (:class:`scoring.engine.ScoredHand`) with its explanation."""

    ruleset: str
    ruleset_name: str
    hand: str = Field(..., description="the hand in notation")
    winner: bool
    total: int
    points: Union[int, float]
    doublings: int
    cash: Union[int, float]
    allowed: bool = Field(..., description="False when the ruleset forbids this mahjong (status says why)")
    status: str
    limit_applied: bool
    no_winning_tile: bool = Field(False, description="a winner's hand scored with no winning tile (none in the notation, "
                                                     "none given): scored with no wait; `/api/hand` adds a note saying "
                                                     "what a winning tile would change")
    summary: str = Field(..., description='"total: 64 = 16 points × 2^2" as the CLI prints it')
    lines: list[LineOut]
    shape: str
    melds: list[MeldOut]
    decomposition: str
    alternatives: list[str] = Field(..., description="other readings with the same total")
    notes: list[str]
    set_aside: list[str] = Field([], description="the explanation's lines of rules the hand earns that do not count: "
                                                 "`not added: …` (excluded, or below the highest of their group) and "
                                                 "special hands `outranked: …`, `also made: …`, `not counted: …`")
    options: dict[str, Any] = Field(..., description="every option's value used")
    changed_options: dict[str, Any] = Field(..., description="options that differ from the ruleset's defaults")
    explanation: str = Field(..., description="the full text explanation (as `mahjong-score hand` prints it)")


class TileOut(BaseModel):
    """One detected tile, numbered as ``fixes`` uses it (the hand's rows first, left to right)."""

    pos: int
    box: list[float] = Field(..., description="x0, y0, x1, y1 in the pixels of the photo as read (turned and "
                                              "straightened as `photo` says), at full resolution")
    file_box: list[float] = Field(..., description="the box carried back into the uploaded photo's own pixels "
                                                   "(EXIF-upright): the box around it, when the photo was straightened")
    detector_score: float
    face_down: bool
    pose: str
    tile: Optional[str] = Field(..., description="the tile in the decoded reading (null for an ignored tile)")
    raw: str = Field(..., description="the classifier's most probable tile")
    role: str = Field(..., description="concealed, winning, exposed, concealed-kong, bonus or ignored")
    changed: bool = Field(..., description="the decoder changed the raw reading to make a legal hand")
    fixed: bool = Field(..., description="set by the user (fixes)")
    added: bool = Field(False, description="added by the user (adds): a tile the detector missed")
    dropped: bool = Field(False, description="left out of the hand by the user (a fix POS=-): not the hand's tile")
    top: list[tuple[str, float]] = Field(..., description="the most probable tiles with their probabilities")
    glyphs: Optional[str] = Field(None, description="what the glyph reader read on the tile that speaks for its "
                                                    "reading (a numeral, a character), null when nothing")
    picture_alone: Optional[str] = Field(None, description="the classifier's own reading, where what is written "
                                                           "on the tile changed it")


class GroupOut(BaseModel):
    tiles: list[int]
    row: int
    main_row: bool = Field(False, description="the group lies in the hand's main row (the page places a face-down "
                                              "tile added from it beside a group off that row)")
    role: str


class PhotoMeldOut(BaseModel):
    notation: str
    tiles: list[int]


class ChangedOut(BaseModel):
    pos: int
    raw: str
    tile: str


class PhotoInfo(BaseModel):
    name: str
    width: int = Field(..., description="of the photo as read: turned when `turned` is not 0, straightened when "
                                        "`straightened` is not 0 (boxes are in that frame)")
    height: int
    turned: int = Field(0, description="the photo was read turned this many degrees clockwise (0, 90, 180, 270)")
    straightened: float = Field(0.0, description="before any turn, the photo was turned this many degrees anticlockwise "
                                "(negative: clockwise) to level its rows (a phone held askew; 0: not straightened; "
                                "the boxes are in the straightened frame)")
    mirrored: bool = Field(False, description="the tiles were boxed again, the photo also read mirrored and the two "
                                              "passes' boxes fused (the first reading was not legal or unsure)")
    view: Optional[list[float]] = Field(None, description="the annotated image shows only this part of the photo, "
                                        "[x0, y0, x1, y1] in the boxes' pixels, enlarged to the image's size: a hand "
                                        "small in its photo (null: the whole photo)")
    second_detector: bool = Field(False, description="the boxes include a second detector's (mahjong-detector's, "
                                  "trained on real photos): the first reading was not legal or under 95 % sure")
    file_width: int = Field(..., description="the uploaded photo's size, EXIF-upright (the frame of `file_box`)")
    file_height: int


class LeastSureOut(BaseModel):
    """The tile of a reading the classifier was least sure of (:func:`vision.pipeline.least_sure_tile`)."""

    pos: int = Field(..., description="its number, as `fixes` counts the tiles")
    tile: str = Field(..., description="the face the classifier read (a tile you fixed counts as sure)")
    probability: float = Field(..., description="how sure the classifier was of that face, 0..1")


class PhotoScoreResponse(BaseModel):
    """``POST /api/score``: the reading of the photo and its score."""

    photo_id: str = Field(..., description="send it back instead of the image to re-score with other fixes or context")
    photo: PhotoInfo
    ruleset: str
    reading: str = Field(..., description="the hand read from the photo, in notation")
    legal: bool
    problem: Optional[str] = Field(..., description="why the reading is not a legal hand")
    confidence: float
    confidence_shown: str = Field(..., description="the confidence as the page and the command line print it "
                                                   "(\">99%\", \"<1%\", halves rounded up)")
    score_confidence: float = Field(..., description="how sure the score is, 0..1: the confidence without the doubts "
                                                     "that cannot change the score under the ruleset: flowers/seasons "
                                                     "left out as loose tiles, which flower or season a bonus tile is "
                                                     "(vision.pipeline.score_confidence)")
    unsure: bool = Field(False, description="a legal reading whose score is less sure than `review_below` "
                                            "(`score_confidence`): check it before using its score (`batch` marks "
                                            "it needs-review, `audit` UNSURE)")
    review_below: float = Field(..., description="the confidence below which a legal reading is unsure "
                                                 "(vision.decode.REVIEW_BELOW: batch's needs-review, 0..1)")
    no_winning_tile: bool = Field(False, description="a winner's hand scored with no winning tile marked (none in the "
                                                     "photo, none given): scored with no wait (no rule on the "
                                                     "wait or the winning tile applies); give "
                                                     "`winning_tile` (`batch` marks it needs-review)")
    least_sure: Optional[LeastSureOut] = Field(None, description="the tile the classifier was least sure of; null "
                                                                 "when the reading uses no tile")
    changed: list[ChangedOut]
    melds: list[PhotoMeldOut]
    tiles: list[TileOut]
    groups: list[GroupOut]
    notes: list[str]
    fixes: dict[str, str] = Field(..., description="the fixes applied: tile number → tile code")
    annotated: str = Field(..., description="the annotated photo as a data: URL (JPEG)")
    timings_ms: dict[str, float]
    score: Optional[ScoreOut] = Field(..., description="null when the reading is not a legal hand")
    score_error: Optional[str] = Field(None, description="why a legal reading could not be scored")
    tileset: Optional[str] = Field(None, description="the calibrated tile set read with (mahjong-score calibrate)")
    learned: int = Field(0, description="fixed tiles added to the tile set by this request (learn=true)")
    not_learned: Optional[str] = Field(None, description="why learn=true added nothing: the reading with the fixes "
                                                         "is not a legal hand (they are learned once it is)")


class TilesetOut(BaseModel):
    """One calibrated tile set (``mahjong-score tilesets``)."""

    name: str
    classes: int = Field(..., description="faces covered")
    covered: list[str]
    examples: int
    learned: int = Field(..., description="examples added from corrections")
    photos: int
    created: str
    updated: str


class TilesetsResponse(BaseModel):
    """``GET /api/tilesets``."""

    tilesets: list[TilesetOut]
    default: Optional[str] = Field(None, description="the tile set `serve --tileset` selects by default")
    unreadable: list[dict] = Field(default_factory=list,
                                   description="profile files that cannot be read: {name, error} (as `mahjong-score tilesets` lists them)")


class CalibrationOut(BaseModel):
    """``POST /api/tilesets``: the profile made or extended from the photo, and how well it separates the faces."""

    name: str
    added: int
    seconds: float
    profile: TilesetOut
    separation: dict[str, Any]
    photos: list[dict[str, Any]]


class OptionOut(BaseModel):
    name: str
    default: Any
    choices: list[Any]
    ambiguity: str
    doc: str


class RulesetOut(BaseModel):
    id: str
    name: str
    seed: str
    description: str
    hand_size: int
    limit: Optional[int]
    notes: list[str]
    options: list[OptionOut]
    flags: list[str] = Field(..., description="context flags this ruleset understands")
    settlement: Optional[str] = Field(..., description="the settlement scheme, when the ruleset has one")


class TileFace(BaseModel):
    code: str
    name: str


class RulesetsResponse(BaseModel):
    """``GET /api/rulesets``: the rulesets, plus what the page needs to build its forms."""

    rulesets: list[RulesetOut]
    tiles: list[TileFace] = Field(..., description="the 43 faces of the tile picker (vision.classes)")
    win_by: list[str]
    models: bool = Field(..., description="photo reading is available (the models are loaded)")
    models_error: Optional[str]
    max_upload_bytes: int
    timeout_s: float


class PlayerIn(BaseModel):
    """A player at the table: a hand score, or a hand in notation to score."""

    model_config = ConfigDict(extra="forbid")

    name: Label = Field(..., min_length=1, max_length=24)
    # (strict: a tester's "score": true had been taken as 1, and "200" as 200)
    score: Optional[StrictInt] = Field(None, ge=0, le=MAX_SCORE)
    hand: Optional[str] = Field(None, max_length=200, description="the player's hand in notation (scored when given)")
    flags: list[str] = Field(default_factory=list, max_length=20)


class SettleRequest(BaseModel):
    """``POST /api/settle``: four players in seating order (the order of play)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={
        "examples": [{"ruleset": "rode-draak", "east": "E", "winner": "W",
                      "players": [{"name": "E", "score": 200}, {"name": "S", "score": 100},
                                  {"name": "W", "score": 200}, {"name": "N", "score": 500}]}]})

    # (rode-draak, as `settle`, `table` and the page's Table view default to: a new user's /api/settle without one was
    # settled under nts, the command line's under rode-draak)
    ruleset: str = Field("rode-draak", max_length=40, description="default rode-draak, as `mahjong-score settle`")
    players: list[PlayerIn] = Field(..., min_length=4, max_length=4)
    east: Label = Field(..., description="the player who is East (the dealer) this hand")
    # (required, null for a void hand: a forgotten winner had settled the table as void, every score 0)
    # (blank is left to the settlement's own words: "winner is blank: give the player who went mahjong, or null")
    winner: Optional[Annotated[str, AfterValidator(player_label)]] = Field(
        ..., description="who went mahjong; null for a void hand (the key is required)")
    round_wind: Wind = "E"
    winning_tile: OptionalTile = Field(None, max_length=4, description="the winner's winning tile (blank: not given)")
    win_by: WinBy = "discard"
    last_tile: bool = False
    first_turn: bool = False
    announced_wait: bool = False
    kong_on_kong: bool = False
    flags: list[str] = Field(default_factory=list, max_length=20, description="the winner's flags")
    options: dict[str, OptionValue] = Field(default_factory=dict, description="ruleset options for scoring")
    settle_options: dict[str, OptionValue] = Field(default_factory=dict, description="settlement-scheme options")


class TransferOut(BaseModel):
    payer: str
    payee: str
    amount: int
    reason: str


class SettleResponse(BaseModel):
    ruleset: str
    scheme: str
    east: str
    winner: Optional[str]
    seats: dict[str, str] = Field(..., description="player → seat wind this hand")
    scores: dict[str, int]
    hands: dict[str, ScoreOut] = Field(..., description="the hands that were given in notation, scored")
    net: dict[str, int] = Field(..., description="player → net points (positive receives); sums to 0")
    transfers: list[TransferOut]
    notes: list[str]
    cash: dict[str, float]


class ErrorOut(BaseModel):
    """Every error: one line naming the problem (the HTTP status says which kind)."""

    error: str
