from sheets import registry


class FreeFallConfig(registry.GameSystemConfig):
    name = "sheets.systems.freefall"
    label = "freefall"
