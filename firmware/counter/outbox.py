"""Messages the counter starts (button intents, battery, claim window) waiting for each link."""


class Outbox:
    """One queue per link; ``put`` fans a payload out to all of them and wakes their waiters."""

    MAX = 8  # a link that is not being read keeps only the newest messages

    def __init__(self, links):
        self.queues = {}
        self.events = {}
        for name in links:
            self.queues[name] = []

    def watch(self, link):
        """An asyncio.Event that ``put`` sets whenever something is queued (clear it yourself)."""
        event = self.events.get(link)
        if event is None:
            import asyncio

            event = self.events[link] = asyncio.Event()
        return event

    def put(self, payload, to_all=False):
        """Queue ``payload``: for authenticated apps only, or for anyone (to_all)."""
        kind = "all" if to_all else "auth"
        for queue in self.queues.values():
            if len(queue) >= self.MAX:
                queue.pop(0)
            queue.append((kind, payload))
        for event in self.events.values():
            event.set()

    def clear(self, link):
        """Forget what waited for ``link`` (a new connection must not hear stale news)."""
        self.queues[link] = []

    def has(self, link):
        return bool(self.queues[link])

    def pop(self, link):
        return self.queues[link].pop(0)
