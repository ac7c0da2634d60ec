print("vi-continue")
