catalog instances
