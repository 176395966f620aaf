"""A set of graders of the kinds people write for numeric answers, buggy and sound."""
