"""The spec model: the OpenAPI description and the requirements catalogue as data, the target
file and its conventions, the capabilities a target states, the paths of the shipped files."""
