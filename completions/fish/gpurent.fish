# fish completion for gpurent(1). Every word comes from the binary itself
# (`gpurent __complete ...`), so this file never keeps a second list of commands, options
# or values; see completions/bash/gpurent for the protocol.

function __gpurent_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    set -l gr $tokens[1]
    test -n "$gr"; or set gr gpurent
    set -l cmd
    set -l only_pos 0
    set -l dd 0
    set -l n (count $tokens)

    # Find the command: the first word that is neither an option nor an option's value.
    set -l i 2
    while test $i -le $n
        set -l w $tokens[$i]
        if test -n "$cmd" -a "$w" = -- -a $only_pos -eq 0
            set only_pos 1
            set dd $i
        else if test $only_pos -eq 0; and string match -qr -- '^-.' $w
            if not string match -q -- '*=*' $w
                if test -n "$cmd"
                    $gr __complete takes-arg $cmd $w 2>/dev/null; and set i (math $i + 1)
                else
                    $gr __complete takes-arg $w 2>/dev/null; and set i (math $i + 1)
                end
            end
        else if test -z "$cmd"
            set cmd $w
        end
        set i (math $i + 1)
    end
    set -l c $cmd
    test -n "$c"; or set c __none

    set -l prev
    test $n -ge 2; and set prev $tokens[$n]
    set -l opt
    set -l val $cur
    set -l lead
    # An option that takes a value takes the next word, even "-price".
    if test $only_pos -eq 0; and string match -qr -- '^-.' "$prev"; and not string match -q -- '*=*' "$prev"; and $gr __complete takes-arg $c $prev 2>/dev/null
        set opt $prev
    else if test $only_pos -eq 0; and string match -q -- '--*=*' "$cur"
        set opt (string split -m1 = -- $cur)[1]
        set val (string split -m1 = -- $cur)[2]
        set lead "$opt="
    end

    if test -n "$opt"
        # A comma list (--sort price,gpu-): complete its last item.
        if string match -q -- '*,*' "$val"
            set lead "$lead"(string replace -r -- ',[^,]*$' ',' $val)
            set val (string replace -r -- '^.*,' '' $val)
        end
        for w in ($gr __complete optarg $c $opt "$val" 2>/dev/null)
            echo "$lead$w"
        end
        return
    end
    if test $only_pos -eq 0; and string match -q -- '-*' "$cur"
        $gr __complete options $c 2>/dev/null
        return
    end
    if test -z "$cmd"
        $gr __complete commands "$cur" 2>/dev/null
        return
    end
    if test $only_pos -eq 1; and contains -- "$cmd" ssh run
        # The remote command of `gpurent ssh|run ID -- COMMAND`: complete it as a command line.
        set -l rest $tokens[(math $dd + 1)..-1]
        complete -C "$rest $cur"
        return
    end
    $gr __complete args $cmd "$cur" 2>/dev/null
end

complete -c gpurent -f -a '(__gpurent_complete)'
