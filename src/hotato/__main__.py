from hotato.cli.main import main

main()
