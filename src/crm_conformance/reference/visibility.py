"""Record visibility: who besides its owner sees a record."""

VISIBILITIES = ("private", "team", "team_and_subteams", "company")
DEFAULT = "company"
