print("haul: being written")
