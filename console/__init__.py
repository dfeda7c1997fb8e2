"""The analyst review console (`tieout review`): a web app over a review store."""
