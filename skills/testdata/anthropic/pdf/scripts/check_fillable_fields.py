import sys
print("fields of", sys.argv[1] if len(sys.argv) > 1 else "nothing")
