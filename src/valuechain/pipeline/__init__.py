"""The only orchestrators: the modules that call more than one stage.

``imports`` runs an import (paths → ingest → store → derive), ``derive`` the derive step
(store → evidence → derive → store → materialize).
"""
