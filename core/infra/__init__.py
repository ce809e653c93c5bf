"""Infrastructure: settings, the Redis store and its key layout, ids, cursors, errors, metrics, locks, secrets, the URL guard. Imports nothing of ours outside this room."""
