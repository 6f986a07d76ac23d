from sheets import registry


class TriadConfig(registry.GameSystemConfig):
    name = "sheets.systems.triad"
    label = "triad"
