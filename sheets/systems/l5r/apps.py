from sheets import registry


class L5RConfig(registry.GameSystemConfig):
    name = "sheets.systems.l5r"
    label = "l5r"
